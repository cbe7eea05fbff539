#!/usr/bin/env node
/**
 * The dashboard's size budget: the JavaScript a first visit downloads before the app can run
 * (the entry script of dist/index.html and every module it preloads), gzipped, at most
 * BUDGET_KB. The lazily loaded pages are listed for information.
 *
 *   node scripts/size.mjs    (after a build; exits 1 over budget)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BUDGET_KB = 250;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

export function measure() {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const initial = [
    ...html.matchAll(/<script[^>]+type="module"[^>]+src="\/([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/g),
  ].map((m) => m[1]);
  const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="\/([^"]+\.css)"/g)].map((m) => m[1]);
  const lazy = readdirSync(join(dist, 'assets'))
    .filter((f) => f.endsWith('.js') && !initial.includes(`assets/${f}`))
    .map((f) => `assets/${f}`);
  return {
    initial: initial.map((file) => ({ file, gzip: gz(file) })),
    css: css.map((file) => ({ file, gzip: gz(file) })),
    lazy: lazy.map((file) => ({ file, gzip: gz(file) })),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { initial, css, lazy } = measure();
  const total = initial.reduce((sum, f) => sum + f.gzip, 0);
  console.log('dashboard initial JavaScript (gzip):');
  for (const f of initial) console.log(`  ${f.file}  ${kb(f.gzip)}`);
  console.log(`  total ${kb(total)} of ${BUDGET_KB} kB`);
  for (const f of css) console.log(`stylesheet ${f.file}  ${kb(f.gzip)}`);
  console.log(
    `lazy chunks: ${lazy.length}, ${kb(lazy.reduce((s, f) => s + f.gzip, 0))} in all, largest ${kb(Math.max(0, ...lazy.map((f) => f.gzip)))}`,
  );
  if (initial.length === 0) {
    console.error('no entry script found in dist/index.html: build first (npm run build:dashboard)');
    process.exit(1);
  }
  if (total > BUDGET_KB * 1000) {
    console.error(`over budget: ${kb(total)} > ${BUDGET_KB} kB`);
    process.exit(1);
  }
}
