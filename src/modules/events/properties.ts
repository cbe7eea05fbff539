import { isUuid } from '../../platform/ids.js';

/** The first property among `keys` that holds a uuid (lower-cased), else null. */
export function idIn(props: Record<string, unknown> | undefined, keys: readonly string[]): string | null {
  if (!props) return null;
  for (const k of keys) {
    const v = props[k];
    if (typeof v === 'string' && isUuid(v)) return v.toLowerCase();
  }
  return null;
}
