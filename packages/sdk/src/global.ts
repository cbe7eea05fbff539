/**
 * The script-tag entry, built as the IIFE `/sdk/guidance.js`: defines `window.Guidance`.
 *
 *   <script src="https://guidance.example.com/sdk/guidance.js"></script>
 *   <script>Guidance.init({ apiKey: 'wfx_…' })</script>
 *
 * The service URL defaults to the origin the script came from. `data-api-key` (and optionally
 * `data-user-id`, `data-locale`) on the script tag initializes it without a second script. Calls
 * queued before the script loaded (`window.Guidance = [['init', {...}], ...]`) are replayed.
 */
import { createGuidance, type GuidanceApi } from './guidance.js';

declare global {
  interface Window {
    Guidance: GuidanceApi | unknown[] | undefined;
  }
}

const script = document.currentScript as HTMLScriptElement | null;
let origin: string | undefined;
try {
  origin = script?.src ? new URL(script.src, location.href).origin : undefined;
} catch {
  origin = undefined;
}

const queued = window.Guidance;
const guidance = createGuidance(origin);
window.Guidance = guidance;

const key = script?.dataset.apiKey;
if (key) {
  void guidance.init({ apiKey: key, userId: script?.dataset.userId, locale: script?.dataset.locale });
}
if (Array.isArray(queued)) {
  for (const call of queued) {
    if (!Array.isArray(call)) continue;
    const [method, ...args] = call as [keyof GuidanceApi, ...unknown[]];
    const fn = guidance[method];
    if (typeof fn === 'function') (fn as (...a: unknown[]) => unknown)(...args);
  }
}
