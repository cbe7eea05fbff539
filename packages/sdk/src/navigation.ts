/**
 * Calls `onChange` when the page's URL changes without a page load: pushState and replaceState
 * (patched, once per page, keeping the originals' behaviour), popstate and hashchange.
 * Returns the cleanup (the patch stays; it only forwards).
 */
const EVENT = 'guidance:navigate';
let patched = false;

export function watchNavigation(onChange: () => void): () => void {
  if (!patched) {
    patched = true;
    for (const method of ['pushState', 'replaceState'] as const) {
      const original = history[method];
      history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
        const result = original.apply(this, args);
        dispatchEvent(new Event(EVENT));
        return result;
      };
    }
  }
  let last = location.href;
  let pending = false;
  const check = () => {
    if (pending) return;
    pending = true;
    // A microtask later: several history calls in one task count as one navigation.
    queueMicrotask(() => {
      pending = false;
      if (location.href === last) return;
      last = location.href;
      onChange();
    });
  };
  for (const type of [EVENT, 'popstate', 'hashchange']) addEventListener(type, check);
  return () => {
    for (const type of [EVENT, 'popstate', 'hashchange']) removeEventListener(type, check);
  };
}
