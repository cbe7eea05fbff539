import type { Placement } from '@floating-ui/dom';

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
