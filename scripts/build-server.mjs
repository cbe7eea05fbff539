#!/usr/bin/env node
/**
 * Compiles the service (src/**\/*.ts, tests left out) to JavaScript in dist/, one file per source
 * with the same layout (esbuild, no bundling), and copies the SQL migrations beside it. `npm start`
 * runs dist/main.js: no TypeScript loader in the serving process (tsx kept an esbuild child
 * process and its transpile caches resident, ~80 MiB). dist/ sits at the depth of src/, so every
 * `new URL('../..', import.meta.url)` read (package.json, packages/*\/dist, migrations) resolves
 * to the same file from either tree.
 *
 *   node scripts/build-server.mjs             build
 *   node scripts/build-server.mjs --if-stale  only when the sources changed since the last build
 *                                             (npm start, npm ci)
 *   --root DIR                                another project tree (tests)
 *
 * "Changed": the fingerprint of every input's path, size and mtime differs from the one the last
 * build recorded, so an edited, added, deleted or checked-out file rebuilds. The new tree is
 * built beside dist/ and renamed into place: a running service never sees it half written.
 */
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const STAMP = '.build-fingerprint';

const isTest = (name) => name.endsWith('.test.ts');

/** Every source file of the build (sorted): the TypeScript to compile and the files to copy. */
function inputs(src) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!isTest(entry.name)) files.push(path);
    }
  };
  walk(src);
  return files.sort();
}

function fingerprint(root, files) {
  const hash = createHash('sha256');
  for (const file of [...files, join(root, 'package.json'), join(root, 'tsconfig.json'), SELF]) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(root, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function recordedFingerprint(dist) {
  try {
    return readFileSync(join(dist, STAMP), 'utf8');
  } catch {
    return null;
  }
}

export async function buildServer({ root = join(dirname(SELF), '..'), ifStale = false } = {}) {
  const src = join(root, 'src');
  const dist = join(root, 'dist');
  const files = inputs(src);
  const print = fingerprint(root, files);
  if (ifStale && recordedFingerprint(dist) === print) return { skipped: true };
  const started = Date.now();
  const esbuild = await import('esbuild');
  const out = `${dist}.tmp-${process.pid}`;
  rmSync(out, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: files.filter((f) => f.endsWith('.ts')),
      outdir: out,
      outbase: src,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // For stack traces with NODE_OPTIONS=--enable-source-maps; not loaded otherwise.
      sourcemap: 'linked',
      sourcesContent: false,
      tsconfig: join(root, 'tsconfig.json'),
      logLevel: 'warning',
    });
    for (const file of files.filter((f) => !f.endsWith('.ts') && !f.endsWith('.md')))
      cpSync(file, join(out, relative(src, file)));
    writeFileSync(join(out, STAMP), print);
    const old = `${dist}.old-${process.pid}`;
    try {
      renameSync(dist, old);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    try {
      renameSync(out, dist);
    } catch (err) {
      // Another build (a concurrent npm start) put its tree in place first: it is as good.
      if (recordedFingerprint(dist) !== print) throw err;
    }
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return { skipped: false, ms: Date.now() - started, files: files.length };
}

if (process.argv[1] === SELF) {
  const args = process.argv.slice(2);
  const rootArg = args.indexOf('--root');
  const result = await buildServer({
    ifStale: args.includes('--if-stale'),
    ...(rootArg >= 0 ? { root: resolve(args[rootArg + 1]) } : {}),
  });
  if (!result.skipped) console.log(`server built into dist/ (${result.files} files) in ${result.ms} ms`);
}
