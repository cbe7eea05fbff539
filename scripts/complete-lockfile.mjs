#!/usr/bin/env node
// The registry this project installs from serves only the Linux/glibc builds of packages that
// ship one binary package per platform (biome, rollup). `npm install` then leaves the other
// platforms' optional packages out of package-lock.json, and `npm ci` refuses the lockfile as
// "missing" them. This adds those entries with their os/cpu/libc, so npm ci knows to skip them.
// Run it after every `npm install` that rewrites the lockfile: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32', 'sunos', 'aix', 'netbsd'];
const CPU = { 'arm-eabi': 'arm', arm: 'arm', arm64: 'arm64', x64: 'x64', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };

/** `<os>-<cpu>[-<abi>]` at the end of a platform package's name → its os, cpu and libc. */
function platformOf(name) {
  const base = name.split('/').pop().replace(/^(cli|rollup)-/, '');
  const parts = base.split('-');
  const os = parts[0];
  if (!OS.includes(os)) return null;
  let rest = parts.slice(1).join('-');
  let libc;
  for (const [suffix, value] of [['-musleabihf', 'musl'], ['-gnueabihf', 'glibc'], ['-musl', 'musl'], ['-gnu', 'glibc'], ['-msvc', null]]) {
    if (rest.endsWith(suffix)) {
      rest = rest.slice(0, -suffix.length);
      libc = value;
      break;
    }
  }
  const cpu = CPU[rest];
  if (!cpu) return null;
  if (os === 'linux' && libc === undefined) libc = 'glibc';
  return { os, cpu, libc: os === 'linux' ? libc : null };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `${path ? `${path}/` : ''}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[at] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[hoisted] = {
      version,
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
