/** A tiny element builder: no framework, no innerHTML (every text is set as text, never parsed). */

type Child = Node | string | null | undefined | false;
type Props = Record<string, unknown> | null | undefined;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on') && typeof value === 'function') {
        el.addEventListener(key.slice(2), value as EventListener);
      } else if (key === 'class') {
        el.className = String(value);
      } else {
        el.setAttribute(key, value === true ? '' : String(value));
      }
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

let counter = 0;
// Lazy chunks carry their own copy of this module: a random part keeps their ids apart.
const bundle = Math.random().toString(36).slice(2, 6);
/** A unique id for aria references inside the shadow root. */
export const nextId = (prefix = 'g'): string => `${prefix}-${bundle}${++counter}`;
