/**
 * The ESM entry (`npm install @guidance/sdk`):
 *
 *   import { Guidance } from '@guidance/sdk';
 *   await Guidance.init({ apiKey: 'wfx_…', apiUrl: 'https://guidance.example.com', userId: 'u-42' });
 *
 * The script-tag build (`/sdk/guidance.js`) defines the same object as `window.Guidance`.
 */
import { createGuidance } from './guidance.js';

export type { GuidanceEventName, HelpArticle } from './env.js';
export type { GuidanceApi, GuidanceCallback, InitOptions } from './guidance.js';
export { createGuidance } from './guidance.js';
export type { Labels } from './labels.js';
export type { Fingerprint, LookupOutcome, PickResultRequest, PickVerifyResponse } from './target/types.js';
export type * from './wire.js';

/** One shared instance, like `window.Guidance`. */
export const Guidance = createGuidance();
