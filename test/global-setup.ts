import { execFileSync } from 'node:child_process';

/**
 * Builds the browser SDK (packages/sdk/dist) before any test file runs, when a source is newer
 * than the build: the /sdk/* route tests and the browser tests serve the real bundle.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['packages/sdk/scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
