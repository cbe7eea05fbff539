import type * as Heal from './chunks/heal.js';
import type * as Picker from './chunks/picker.js';
import type * as Position from './chunks/position.js';
import type * as Target from './chunks/target.js';
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

/** Fingerprints (a found target's, for TARGET_LOOKUP and the quick check). */
export const loadTarget = (): Promise<typeof Target> =>
  __IIFE__ ? fromService('target') : import('./chunks/target.js');

/** The healing scorer: only when a selector found nothing, several elements, or a doubtful one. */
export const loadHeal = (): Promise<typeof Heal> =>
  __IIFE__ ? fromService('heal') : import('./chunks/heal.js');

/** The element picker: only on a page opened with a verified pick token. */
export const loadPicker = (): Promise<typeof Picker> =>
  __IIFE__ ? fromService('picker') : import('./chunks/picker.js');
