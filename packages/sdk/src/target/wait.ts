/**
 * The target lookup's work (in the `target` chunk): the authored selector, deep, now or once it
 * appears, checked against the fingerprint, healed by it from 3 s after the page settled.
 */
import type { loadHeal as LoadHeal } from '../lazy.js';
import { isObject, store } from '../util.js';
import { HEAL_AFTER_MS, TARGET_TIMEOUT_MS } from './constants.js';
import { deepAll, innerRoots } from './deep.js';
import { agrees, fingerprint } from './fingerprint.js';
import type { Located, LookupOptions } from './lookup.js';
import type { Fingerprint } from './types.js';

/** Fingerprints this browser recorded, by step (see report() in chunks/target.ts). */
export const localFingerprints = (): Record<string, Fingerprint> => {
  const all = store.get<Record<string, Fingerprint>>('fp');
  return isObject(all) ? all : {};
};

const settled = (): Promise<void> =>
  document.readyState === 'complete'
    ? Promise.resolve()
    : new Promise((r) => addEventListener('load', () => r(), { once: true }));

/**
 * The element `selector` names, checked against the fingerprint (`stored`, else the one this
 * browser recorded under `key`): now, or once it appears (a MutationObserver on the document and
 * on every open shadow root and same-origin iframe, plus a 500 ms poll), or healed by the
 * fingerprint from `healAfterMs` after the page settled (then on every change, at most every
 * 250 ms). Null when cancelled; else `missing` / `ambiguous` after `timeoutMs` unless keepWaiting.
 */
export function locate(
  selector: string,
  stored: Fingerprint | undefined,
  key: string,
  o: LookupOptions,
  loadHeal: typeof LoadHeal,
): Promise<Located | null> {
  const fp = stored ?? localFingerprints()[key];
  const cancelled = o.cancelled ?? (() => false);

  const check = async (): Promise<Located | null> => {
    const matches = deepAll(selector);
    const first = matches[0];
    if (!first) return null;
    if (!fp) return { el: first, outcome: 'found' };
    if (matches.length === 1) {
      const own = fingerprint(first);
      if (agrees(fp, own)) return { el: first, outcome: 'found', fingerprint: own };
    }
    // several matches, or one that does not look like the fingerprint: the scorer decides
    const h = await loadHeal().catch(() => null);
    return h ? h.resolve(fp, matches) : { el: first, outcome: 'found' };
  };

  return new Promise((resolve) => {
    let done = false;
    let busy = false;
    let again = false;
    let healing = false;
    let slow = false;
    let lastHeal = 0;
    let last: Located = { el: null, outcome: 'missing' };
    const observed = new WeakSet<Node>();
    const timers: ReturnType<typeof setTimeout>[] = [];
    let observer: MutationObserver | null = null;

    const finish = (r: Located | null) => {
      if (done) return;
      done = true;
      observer?.disconnect();
      for (const t of timers) clearTimeout(t);
      clearInterval(poll);
      resolve(r);
    };
    const observe = (root: Node) => {
      if (observed.has(root) || !observer) return;
      observed.add(root);
      observer.observe(root, {
        childList: true,
        subtree: true,
        attributes: true,
        attributeFilter: ['id', 'class', 'name', 'hidden', 'style', 'aria-label', 'role'],
      });
    };
    const run = async (): Promise<void> => {
      if (done) return;
      if (cancelled()) return finish(null);
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        let r = await check();
        if (!r && healing && fp && Date.now() - lastHeal >= 250) {
          lastHeal = Date.now();
          const h = await loadHeal().catch(() => null);
          const healed = h?.resolve(fp);
          if (healed?.el) r = healed;
          else if (healed) last = healed;
        }
        if (cancelled()) return finish(null);
        if (r) return finish(r);
        if (healing && !slow) {
          slow = true;
          o.onSlow?.();
        }
      } catch {
        // a page that throws in a getter never breaks the lookup
      } finally {
        busy = false;
      }
      if (again) {
        again = false;
        void run();
      }
    };

    const poll = setInterval(() => void run(), 500);
    void run().then(() => {
      if (done) return;
      let scheduled = false;
      observer = new MutationObserver((records) => {
        for (const rec of records) {
          for (const node of Array.from(rec.addedNodes)) {
            if (node.nodeType === 1) for (const root of innerRoots(node as Element)) observe(root);
          }
        }
        if (scheduled) return;
        scheduled = true;
        timers.push(
          setTimeout(() => {
            scheduled = false;
            void run();
          }, 16),
        );
      });
      observe(document.documentElement);
      if (selector.includes('>>>') || fp) for (const root of innerRoots(document)) observe(root);
      void settled().then(() => {
        timers.push(
          setTimeout(() => {
            healing = true;
            void run();
          }, o.healAfterMs ?? HEAL_AFTER_MS),
        );
      });
      timers.push(
        setTimeout(() => {
          if (!o.keepWaiting) return finish(last);
          o.onTimeout?.(last);
        }, o.timeoutMs ?? TARGET_TIMEOUT_MS),
      );
    });
  });
}
