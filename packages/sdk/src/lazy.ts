import type * as Position from './chunks/position.js';
import type * as Widgets from './chunks/widgets.js';

/**
 * Renderers outside the core bundle, so that `/sdk/guidance.js` stays small: positioning
 * (@floating-ui/dom) and the widgets (surveys, NPS, task lists, self-help, form steps). The
 * script-tag build imports them from `<apiUrl>/sdk/chunks/` the first time a page needs them
 * (cached by the browser; the file names carry a content hash). The ESM build bundles them in.
 */
declare const __IIFE__: boolean;
declare const __CHUNKS__: Record<string, string>;

let base = '';
const loaded = new Map<string, Promise<unknown>>();

/** Where the chunks are served: the service's `/sdk/chunks/`. */
export const setChunkBase = (apiBase: string): void => {
  base = `${apiBase}/sdk/`;
};

function fromService<T>(name: string): Promise<T> {
  let p = loaded.get(name) as Promise<T> | undefined;
  if (!p) {
    p = import(/* webpackIgnore: true */ base + __CHUNKS__[name]) as Promise<T>;
    loaded.set(name, p);
    // A failed load (service down) is tried again next time.
    p.catch(() => loaded.delete(name));
  }
  return p;
}

export const loadPosition = (): Promise<typeof Position> =>
  __IIFE__ ? fromService('position') : import('./chunks/position.js');

export const loadWidgets = (): Promise<typeof Widgets> =>
  __IIFE__ ? fromService('widgets') : import('./chunks/widgets.js');
