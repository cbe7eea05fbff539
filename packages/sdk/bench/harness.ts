/**
 * The targeting code as the benchmarks and the Chromium unit tests load it into a page
 * (`window.targeting`): the same modules the SDK's chunks are built from, bundled by esbuild
 * (browser.ts), nothing mocked.
 */
import { rank, resolve } from '../src/chunks/heal.js';
import { deepAll, innerRoots } from '../src/target/deep.js';
import { agrees, fingerprint } from '../src/target/fingerprint.js';
import { isGenerated, isStableClass } from '../src/target/generated.js';
import { propose } from '../src/target/propose.js';
import { score } from '../src/target/score.js';
import type { Fingerprint } from '../src/target/types.js';
import { locate } from '../src/target/wait.js';

const heal = { resolve };
const loadHeal = () => Promise.resolve(heal) as never;

/** The SDK's lookup (target/wait.ts) with healing from the first moment (the benchmark's pages are settled). */
function lookup(selector: string, stored: Fingerprint | undefined, timeoutMs = 200) {
  return locate(selector, stored, `bench|${selector}`, { healAfterMs: 0, timeoutMs }, loadHeal);
}

const api = {
  deepAll,
  innerRoots,
  fingerprint,
  agrees,
  isGenerated,
  isStableClass,
  propose,
  score,
  rank,
  resolve,
  lookup,
};
(window as unknown as { targeting: typeof api }).targeting = api;
export type Targeting = typeof api;
