/**
 * Chromium for the SDK's benchmarks and browser unit tests: Debian's /usr/bin/chromium driven by
 * playwright-core (never a downloaded browser), and the targeting harness bundled with esbuild.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const here = dirname(fileURLToPath(import.meta.url));

export function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: false, // the flag below: Chromium's own (new) headless mode
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

let bundle: Promise<string> | null = null;

/** bench/harness.ts as one script (defines window.targeting), minified like the SDK's chunks. */
export function harness(): Promise<string> {
  bundle ??= esbuild
    .build({
      entryPoints: [join(here, 'harness.ts')],
      bundle: true,
      minify: true,
      write: false,
      format: 'iife',
      target: ['chrome87'],
      define: { __IIFE__: 'false', __CHUNKS__: '{}' },
      logLevel: 'warning',
    })
    .then((r) => r.outputFiles[0]!.text);
  return bundle;
}
