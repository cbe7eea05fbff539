import { execFileSync } from 'node:child_process';

/**
 * Builds the browser SDK (packages/sdk/dist) and the dashboard (packages/dashboard/dist) before
 * any test file runs, when a source is newer than the build: the /sdk/* and / route tests and
 * the browser tests serve the real bundles.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['packages/sdk/scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['packages/dashboard/scripts/build.mjs', '--if-stale'], {
    stdio: 'inherit',
  });
}
