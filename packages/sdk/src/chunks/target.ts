/**
 * Lazy chunk `chunks/target.js`, loaded with a page's first targeted step: deep selectors (`>>>`
 * across open shadow roots and same-origin iframes), the fingerprint of a found target and the
 * quick check that a selector's element is the one the stored fingerprint describes, and the
 * TARGET_LOOKUP report (with the fingerprint, kept locally too, for healing on this browser).
 */
import { fingerprint } from '../target/fingerprint.js';
import type { Located, LookupItem } from '../target/lookup.js';
import { pageTemplate } from '../target/template.js';
import type { Fingerprint } from '../target/types.js';
import { isObject, store } from '../util.js';

export { deepAll, innerRoots } from '../target/deep.js';
export { agrees, fingerprint } from '../target/fingerprint.js';
export { locate } from '../target/wait.js';

const MAX_LOCAL = 50;

/** Keeps `fp` as the fingerprint of the step `key` on this browser (the 50 latest steps). */
export function saveLocal(key: string, fp: Fingerprint): void {
  const stored = store.get<Record<string, Fingerprint>>('fp');
  const all = isObject(stored) ? stored : {};
  delete all[key];
  all[key] = fp;
  const keys = Object.keys(all);
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_LOCAL))) delete all[k];
  store.set('fp', all);
}

const SENT = 'guidance:fp-sent';

/** Whether this fingerprint was already reported in this tab's session (sessionStorage), and marks it. */
function firstReport(key: string): boolean {
  try {
    const sent: string[] = JSON.parse(sessionStorage.getItem(SENT) ?? '[]');
    if (sent.includes(key)) return false;
    sent.push(key);
    sessionStorage.setItem(SENT, JSON.stringify(sent.slice(-200)));
    return true;
  } catch {
    return true;
  }
}

/**
 * `TARGET_LOOKUP` for one lookup: the outcome, the authored selector, the page template; with
 * `found` / `healed`, the fingerprint (the first time this tab reports that step on that page
 * template; it is also kept locally), with `healed` the suggested selector, and the confidence.
 */
export function report(
  emit: (type: 'TARGET_LOOKUP', properties: Record<string, unknown>) => void,
  item: LookupItem,
  selector: string,
  key: string,
  r: Located,
): void {
  const template = pageTemplate(location.pathname);
  const props: Record<string, unknown> = { ...item, outcome: r.outcome, selector, pageTemplate: template };
  if (r.confidence !== undefined) props.confidence = r.confidence;
  if (r.suggested) props.suggestedSelector = r.suggested;
  if (r.el && (r.outcome === 'found' || r.outcome === 'healed')) {
    const fp = r.fingerprint ?? fingerprint(r.el);
    saveLocal(key, fp);
    if (firstReport(`${item.itemId}|${item.stepId}|${template}`)) props.fingerprint = fp;
  }
  emit('TARGET_LOOKUP', props);
}
