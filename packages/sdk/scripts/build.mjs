#!/usr/bin/env node
/**
 * Builds the browser SDK with esbuild:
 *   dist/guidance.js               IIFE defining window.Guidance (served at /sdk/guidance.js): the core
 *   dist/chunks/<name>-<hash>.js   lazy ESM chunks the core imports from /sdk/chunks/ when a page
 *                                  needs them (positioning, widgets); content-hashed names
 *   dist/esm/index.js              ESM build for bundlers (npm install), everything in one file,
 *                                  with dist/types/*.d.ts (--types)
 * Stylesheets (src/ui/*.css) are minified and inlined as string constants.
 *
 *   node scripts/build.mjs            IIFE + ESM
 *   node scripts/build.mjs --types    also the type declarations (tsc)
 *   node scripts/build.mjs --if-stale only when a source is newer than dist/guidance.js (npm start)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
/** Evergreen browsers of the last few years (Shadow DOM, fetch, sendBeacon, ES2019). */
export const TARGETS = ['chrome87', 'edge88', 'firefox78', 'safari14.1'];

function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else newest = Math.max(newest, stat.mtimeMs);
    }
  };
  walk(join(root, 'src'));
  for (const file of ['package.json', 'scripts/build.mjs'])
    newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

export function isStale() {
  try {
    return statSync(join(dist, 'guidance.js')).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

export async function buildSdk({ types = false, ifStale = false } = {}) {
  if (ifStale && !isStale()) return { skipped: true };
  const started = Date.now();
  const minifyCss = async (file) =>
    JSON.stringify(
      (
        await esbuild.transform(readFileSync(join(root, file), 'utf8'), {
          loader: 'css',
          minify: true,
          target: TARGETS,
        })
      ).code.trim(),
    );
  const css = {
    __GUIDANCE_CSS__: await minifyCss('src/ui/styles.css'),
    __WIDGETS_CSS__: await minifyCss('src/ui/widgets.css'),
  };
  const common = {
    bundle: true,
    minify: true,
    sourcemap: true,
    target: TARGETS,
    legalComments: 'none',
    logLevel: 'warning',
  };
  rmSync(join(dist, 'chunks'), { recursive: true, force: true });
  const chunks = await esbuild.build({
    ...common,
    entryPoints: {
      position: join(root, 'src/chunks/position.ts'),
      widgets: join(root, 'src/chunks/widgets.ts'),
      target: join(root, 'src/chunks/target.ts'),
      heal: join(root, 'src/chunks/heal.ts'),
      picker: join(root, 'src/chunks/picker.ts'),
    },
    outdir: join(dist, 'chunks'),
    entryNames: '[name]-[hash]',
    format: 'esm',
    metafile: true,
    define: { ...css, __IIFE__: 'true' },
  });
  // chunk name → its file under /sdk/, for the core's dynamic imports
  const names = {};
  for (const [file, out] of Object.entries(chunks.metafile.outputs)) {
    if (!out.entryPoint || !file.endsWith('.js')) continue;
    const name = out.entryPoint.split('/').pop().replace(/\.ts$/, '');
    names[name] = `chunks/${file.split('/').pop()}`;
  }
  await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [join(root, 'src/global.ts')],
      outfile: join(dist, 'guidance.js'),
      format: 'iife',
      define: { ...css, __IIFE__: 'true', __CHUNKS__: JSON.stringify(names) },
    }),
    esbuild.build({
      ...common,
      entryPoints: [join(root, 'src/index.ts')],
      outfile: join(dist, 'esm/index.js'),
      format: 'esm',
      define: { ...css, __IIFE__: 'false', __CHUNKS__: '{}' },
      // Bundlers of npm users resolve @floating-ui/dom themselves (deduplicated with theirs).
      external: ['@floating-ui/dom'],
    }),
  ]);
  if (types) {
    execFileSync(
      process.execPath,
      [join(root, '../../node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.types.json')],
      {
        stdio: 'inherit',
      },
    );
  }
  return { skipped: false, ms: Date.now() - started };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = new Set(process.argv.slice(2));
  const result = await buildSdk({ types: args.has('--types'), ifStale: args.has('--if-stale') });
  if (!result.skipped) console.log(`@guidance/sdk built in ${result.ms} ms → ${dist}`);
}
