#!/usr/bin/env node
/**
 * Builds the dashboard with Vite into dist/ (served by the service at /):
 *   dist/index.html          the shell (served with no-cache)
 *   dist/assets/<name>-<hash>.{js,css}   hashed, served immutable
 *
 *   node scripts/build.mjs             build
 *   node scripts/build.mjs --if-stale  only when a source is newer than dist/index.html (npm start)
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apiTypes = join(root, '..', 'api-types', 'index.d.ts');

function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path);
      // tests and their helpers are not in the build: editing one needs no rebuild
      if (stat.isDirectory()) {
        if (name !== 'test') walk(path);
      } else if (!/\.test\.tsx?$/.test(name)) newest = Math.max(newest, stat.mtimeMs);
    }
  };
  walk(join(root, 'src'));
  for (const file of ['package.json', 'index.html', 'vite.config.ts', 'scripts/build.mjs'])
    newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  try {
    newest = Math.max(newest, statSync(apiTypes).mtimeMs);
  } catch {
    // no generated types: nothing to compare
  }
  return newest;
}

export function isStale() {
  try {
    return statSync(join(root, 'dist', 'index.html')).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

export async function buildDashboard({ ifStale = false } = {}) {
  if (ifStale && !isStale()) return { skipped: true };
  const started = Date.now();
  // A production build whatever the caller's NODE_ENV (vitest's global setup runs with `test`,
  // which would otherwise give React's development build).
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  await build({ root, mode: 'production', configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  return { skipped: false, ms: Date.now() - started };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await buildDashboard({ ifStale: process.argv.includes('--if-stale') });
  if (!result.skipped) console.log(`dashboard built in ${result.ms} ms (packages/dashboard/dist)`);
}
