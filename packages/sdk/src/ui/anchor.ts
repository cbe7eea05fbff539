import type { Placement } from '@floating-ui/dom';
import { query } from '../util.js';

/** How long a missing target is waited for before SELECTOR_NOT_FOUND. */
export const TARGET_TIMEOUT_MS = 10_000;

/**
 * The element `selector` names, now or once it appears (a MutationObserver; the selector is
 * checked at most every 16 ms, with a timer rather than a frame callback so that a background
 * tab still finds it); null after `timeoutMs` or when `cancelled()` turns true.
 */
export function waitForElement(
  selector: string,
  timeoutMs: number = TARGET_TIMEOUT_MS,
  cancelled: () => boolean = () => false,
): Promise<Element | null> {
  const found = query(selector);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    let scheduled = false;
    const finish = (el: Element | null) => {
      observer.disconnect();
      clearTimeout(timer);
      resolve(el);
    };
    const check = () => {
      scheduled = false;
      if (cancelled()) return finish(null);
      const el = query(selector);
      if (el) finish(el);
    };
    const observer = new MutationObserver(() => {
      if (scheduled) return;
      scheduled = true;
      setTimeout(check, 16);
    });
    observer.observe(document.documentElement, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['id', 'class', 'name', 'hidden', 'style'],
    });
    const timer = setTimeout(() => finish(null), timeoutMs);
  });
}

const SIDES: Record<string, Placement> = { TOP: 'top', BOTTOM: 'bottom', LEFT: 'left', RIGHT: 'right' };

/** The floating-ui placement of a tooltip `position` (AUTO: below, flipped when there is no room). */
export const placementOf = (position: unknown): Placement =>
  (typeof position === 'string' && SIDES[position.toUpperCase()]) || 'bottom';

/** Brings `target` into view (centred) unless it is already fully visible. */
export function reveal(target: Element): void {
  const r = target.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) {
    target.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'smooth' });
  }
}
