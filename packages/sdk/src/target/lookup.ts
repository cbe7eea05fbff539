/**
 * Finding a step's target: the authored selector (deep: `>>>` crosses shadow roots and iframes)
 * now or once it appears, checked against the step's fingerprint, healed by the fingerprint when
 * the selector finds nothing 3 s after the page settled, and reported (`TARGET_LOOKUP`). The core
 * keeps only these entry points: the work is in the `target` chunk (loaded with a page's first
 * targeted step; see target/wait.ts) and the `heal` chunk (only when a lookup fails).
 */
import { loadHeal, loadTarget } from '../lazy.js';
import { isObject } from '../util.js';
import type { Fingerprint, LookupOutcome } from './types.js';

export { HEAL_AFTER_MS, TARGET_TIMEOUT_MS } from './constants.js';

export interface Located {
  el: Element | null;
  outcome: LookupOutcome;
  confidence?: number;
  fingerprint?: Fingerprint;
  suggested?: string;
}

export interface LookupOptions {
  cancelled?: () => boolean;
  timeoutMs?: number;
  healAfterMs?: number;
  /** Go on waiting after `timeoutMs` (then `onTimeout` is told); settles only when found or cancelled. */
  keepWaiting?: boolean;
  /** Once, when the target is still missing after the first healing attempt. */
  onSlow?: () => void;
  /** With keepWaiting: once, at `timeoutMs`, with the outcome so far. */
  onTimeout?: (r: Located) => void;
}

/** A step's stored fingerprint (`targetFingerprint` from the session), read defensively. */
export function storedFingerprint(item: unknown): Fingerprint | undefined {
  const fp = isObject(item) ? item.targetFingerprint : undefined;
  return isObject(fp) && typeof fp.tag === 'string' ? (fp as unknown as Fingerprint) : undefined;
}

// ---- fingerprints recorded by this browser (localStorage, the 50 latest) ----

/**
 * The element `selector` names, checked and healed by the fingerprint (`stored`, else the one
 * this browser recorded under `key`); see target/wait.ts. Null when cancelled. Should the target
 * chunk fail to load, the plain CSS selector, once.
 */
export async function locate(
  selector: string,
  stored: Fingerprint | undefined,
  key: string,
  o: LookupOptions = {},
): Promise<Located | null> {
  const t = await loadTarget().catch(() => null);
  if (t) return t.locate(selector, stored, key, o, loadHeal);
  let el: Element | null = null;
  try {
    el = document.querySelector(selector);
  } catch {
    // invalid: nothing
  }
  return o.cancelled?.() ? null : { el, outcome: el ? 'found' : 'missing' };
}

export interface LookupItem {
  itemKind: 'flow' | 'content';
  itemId: string;
  stepId: string | null;
}

/** Reports a lookup (TARGET_LOOKUP, see chunks/target.ts); nothing when the chunk cannot load. */
export function report(
  emit: (type: 'TARGET_LOOKUP', properties: Record<string, unknown>) => void,
  item: LookupItem,
  selector: string,
  key: string,
  r: Located,
): void {
  void loadTarget().then(
    (t) => t.report(emit, item, selector, key, r),
    () => {},
  );
}
