/**
 * Lazy chunk `chunks/position.js`: everything that needs @floating-ui/dom (anchored popovers,
 * highlight rings, beacon pins), loaded the first time a page shows a targeted step or item.
 */
import { arrow, autoUpdate, computePosition, flip, offset, type Placement, shift } from '@floating-ui/dom';
import { h } from '../ui/dom.js';
import type { Root } from '../ui/root.js';

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
    const r = target.getBoundingClientRect();
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
    const r = target.getBoundingClientRect();
    Object.assign(el.style, { left: `${(rtl ? r.left : r.right) - 9}px`, top: `${r.top - 9}px` });
  });
}
