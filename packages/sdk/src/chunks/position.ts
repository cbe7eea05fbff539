/**
 * Lazy chunk `chunks/position.js`: everything that needs @floating-ui/dom (anchored popovers,
 * highlight rings, beacon pins), loaded the first time a page shows a targeted step or item.
 */
import { arrow, autoUpdate, computePosition, flip, offset, type Placement, shift } from '@floating-ui/dom';
import { h } from '../ui/dom.js';
import type { Root } from '../ui/root.js';
import { focusables, type Surface } from '../ui/surface.js';

/**
 * `el`'s rectangle in the top window's viewport: a target in a same-origin iframe is offset by
 * its frames (floating-ui's computePosition does the same for anchored cards).
 */
export function viewportRect(el: Element): DOMRect {
  const r = el.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  for (
    let win: Window | null = el.ownerDocument.defaultView, i = 0;
    win?.frameElement && i < 10;
    win = win.parent, i++
  ) {
    const f = win.frameElement.getBoundingClientRect();
    x += f.left + win.frameElement.clientLeft;
    y += f.top + win.frameElement.clientTop;
  }
  return new DOMRect(x, y, r.width, r.height);
}

/**
 * Keeps `floating` beside `target` (flip to the other side, shift into the viewport, follow
 * scroll and resize) with an arrow; returns the cleanup.
 */
export function anchorTo(target: Element, floating: HTMLElement, placement: Placement): () => void {
  const tip = h('div', { class: 'g-arrow' });
  floating.append(tip);
  const update = () => {
    void computePosition(target, floating, {
      strategy: 'fixed',
      placement,
      middleware: [
        offset(12),
        flip({ padding: 8 }),
        shift({ padding: 8 }),
        arrow({ element: tip, padding: 10 }),
      ],
    }).then((pos) => {
      Object.assign(floating.style, { left: `${pos.x}px`, top: `${pos.y}px` });
      const a = pos.middlewareData.arrow;
      const side = pos.placement.split('-')[0]!;
      const edge = ({ top: 'bottom', bottom: 'top', left: 'right', right: 'left' } as Record<string, string>)[
        side
      ]!;
      tip.style.cssText = '';
      Object.assign(tip.style, {
        left: a?.x != null ? `${a.x}px` : '',
        top: a?.y != null ? `${a.y}px` : '',
        [edge]: '-6px',
      });
    });
  };
  return autoUpdate(target, floating, update);
}

/** A highlight ring drawn over `target` (pointer events pass through); returns the cleanup. */
export function ring(root: Root, target: Element): () => void {
  const el = root.mount(h('div', { class: 'g-ring', 'aria-hidden': 'true' }));
  const stop = autoUpdate(target, el, () => {
    const r = viewportRect(target);
    Object.assign(el.style, {
      left: `${r.left - 4}px`,
      top: `${r.top - 4}px`,
      width: `${r.width + 8}px`,
      height: `${r.height + 8}px`,
    });
  });
  return () => {
    stop();
    el.remove();
  };
}

/** A beacon dot pinned to the top corner of `target` (the end corner in RTL); returns the cleanup. */
export function pin(target: Element, el: HTMLElement, rtl: boolean): () => void {
  return autoUpdate(target, el, () => {
    const r = viewportRect(target);
    Object.assign(el.style, { left: `${(rtl ? r.left : r.right) - 9}px`, top: `${r.top - 9}px` });
  });
}

/**
 * Keyboard order for a card anchored to `target`: Tab on the target moves into the card (as if it
 * came right after the target), Shift+Tab from the card's first control goes back to the target,
 * Tab from its last goes on to what follows the target. Returns the cleanup.
 */
export function tabAfter(target: Element, s: Surface, root: Root): () => void {
  const el = target as HTMLElement;
  const onTarget = (e: KeyboardEvent) => {
    if (
      e.key === 'Tab' &&
      !e.shiftKey &&
      !e.altKey &&
      !e.ctrlKey &&
      !e.metaKey &&
      e.composedPath()[0] === el
    ) {
      e.preventDefault();
      s.focus();
    }
  };
  const onCard = (e: KeyboardEvent) => {
    if (e.key !== 'Tab') return;
    const items = focusables(s.card);
    const active = root.activeElement();
    const to = e.shiftKey
      ? active === items[0] || active === s.card
        ? el
        : null
      : active === items[items.length - 1]
        ? focusables(el.ownerDocument.body).find(
            (x) => el.compareDocumentPosition(x) & Node.DOCUMENT_POSITION_FOLLOWING && !el.contains(x),
          )
        : null;
    if (to) {
      e.preventDefault();
      to.focus();
    }
  };
  el.addEventListener('keydown', onTarget);
  s.card.addEventListener('keydown', onCard);
  return () => {
    el.removeEventListener('keydown', onTarget);
    s.card.removeEventListener('keydown', onCard);
  };
}
