/**
 * Lazy chunk `chunks/heal.js`: finds a step's target again by its fingerprint, loaded only when a
 * selector found nothing (3 s after the page settled), found several elements, or found one that
 * does not look like the fingerprint. Two phases, to stay within milliseconds on large pages:
 * every element (open shadow roots and same-origin iframes included) is scored on what is cheap
 * to read (tag, role, id, attributes, classes, a leaf's text); the best are fingerprinted in full
 * (label, landmark, heading, neighbouring text, path, position) and scored again.
 */
import { innerRoot, norm } from '../target/deep.js';
import { contradicts, fingerprint, isControl } from '../target/fingerprint.js';
import { propose } from '../target/propose.js';
import { acceptable, clearWinner, KEEP_IDENTITY, type Ranked, score } from '../target/score.js';
import type { Fingerprint, LookupOutcome } from '../target/types.js';

export { agrees, fingerprint } from '../target/fingerprint.js';
export { propose } from '../target/propose.js';

/** Elements fingerprinted in full (phase two): the best of phase one… */
const TOP = 16;
/** …with their ties, up to this many (ties beyond are broken by the neighbouring words). */
const MAX_FULL = 32;
/** …and always the first few. */
const FEW = 4;
const SKIP = new Set(
  'HTML BODY HEAD SCRIPT STYLE TEMPLATE NOSCRIPT META LINK TITLE BR WBR path g defs use symbol stop rect circle line polyline polygon ellipse text tspan clipPath mask linearGradient radialGradient'.split(
    ' ',
  ),
);

/**
 * Every element under `root` that could be a target, with those of open shadow roots and
 * same-origin iframes (not the SDK's own), in a flat list: faster than a tree walk.
 */
function candidates(root: Document | ShadowRoot, out: Element[] = [], depth = 0): Element[] {
  const all = root.querySelectorAll('*');
  for (let i = 0; i < all.length; i++) {
    const el = all[i]!;
    if (!SKIP.has(el.tagName)) out.push(el);
    if (depth < 8 && (el.shadowRoot || el.tagName === 'IFRAME') && !el.hasAttribute('data-guidance-root')) {
      const inner = innerRoot(el);
      if (inner) candidates(inner, out, depth + 1);
    }
  }
  return out;
}

const low = (s: string | null | undefined) => norm(s).toLowerCase();

/**
 * Phase one's scorer for `stored`: what a few property reads tell (tag, explicit role, id, the
 * stored attributes, the stored classes, a leaf's text or aria-label), about 1 µs an element.
 */
function quick(stored: Fingerprint, qs: Float64Array, ids: Float64Array): (el: Element, i: number) => void {
  const tag = stored.tag.toUpperCase();
  const name = low(stored.name);
  const text = low(stored.text);
  const want = name || text;
  const longest = Math.max(name.length, text.length) * 3 + 20;
  const attrs = Object.entries(stored.attrs ?? {}).filter(([k]) => !/^(?:type|role|for)$/.test(k));
  const layout = Object.entries(stored.attrs ?? {}).filter(([k]) => /^(?:type|role|for)$/.test(k));
  const classes = stored.classes ?? [];
  const same = (t: string, w: string) =>
    t === w ? 1 : w && (t.includes(w) || (t && w.includes(t))) ? 0.5 : 0;
  // whose text is worth reading: the stored tag, and controls (a control stays one) or content
  // containers (content stays content); anything with a role
  const texty = new Set(
    isControl(stored)
      ? ['A', 'BUTTON', 'LABEL', 'SUMMARY', 'OPTION', tag]
      : ['LI', 'TD', 'TH', 'SPAN', 'DIV', 'P', tag],
  );
  return (el, i) => {
    const t0 = el.tagName;
    let q = t0 === tag ? 1 : 0;
    let id = 0;
    if (stored.id && el.id === stored.id) id += 1.5;
    for (const [k, v] of attrs) if (el.getAttribute(k) === v) id += 1;
    for (const [k, v] of layout) if (el.getAttribute(k) === v) q += 0.5;
    for (const c of classes) if (el.classList.contains(c)) q += 0.75 / classes.length;
    const role = stored.role ? el.getAttribute('role') : null;
    if (role && role === stored.role) q += 0.5;
    if (want && (texty.has(t0) || role)) {
      const label = el.getAttribute('aria-label');
      if (label) id += 1.5 * same(label.toLowerCase(), name);
      else if (el.childElementCount <= 3) {
        const raw = el.textContent ?? '';
        if (raw.length <= longest) {
          const t =
            raw.length > 0 && (raw.charCodeAt(0) <= 32 || raw.includes('  ') || raw.includes('\n'))
              ? low(raw)
              : raw.toLowerCase();
          id += 1.5 * same(t, name) + 1.25 * same(t, text);
        }
      }
    }
    qs[i] = q + id;
    ids[i] = id;
  };
}

/** Words of `stored.near` found around `el` (its parent's and grandparent's text): breaks ties in phase one. */
function nearWords(stored: Fingerprint): (el: Element) => number {
  const words = low(stored.near)
    .split(/\W+/)
    .filter((w) => w.length > 1);
  return (el) => {
    if (words.length === 0) return 0;
    const around = ((el.parentElement?.parentElement ?? el).textContent ?? '').slice(0, 600).toLowerCase();
    let n = 0;
    for (const w of words) if (around.includes(w)) n++;
    return n;
  };
}

/** Whether `fp` has any identity field (the scorer's identity is -1 otherwise). */
const hasIdentity = (fp: Fingerprint): boolean =>
  !!(
    fp.id ||
    fp.name ||
    fp.text ||
    fp.label ||
    Object.keys(fp.attrs ?? {}).some((k) => !/^(?:type|role|for)$/.test(k))
  );

const visible = (el: Element): boolean => {
  const check = (el as HTMLElement).checkVisibility;
  if (typeof check === 'function') return check.call(el, { visibilityProperty: true } as never);
  return el.getClientRects().length > 0;
};

export interface Healed {
  /** The element to anchor to; null when none is confidently the one. */
  el: Element | null;
  outcome: LookupOutcome;
  /** The winner's score (0–1). */
  confidence?: number;
  /** The winner's fingerprint. */
  fingerprint?: Fingerprint;
  /** A selector for the element healed to (the picker's rules). */
  suggested?: string;
  /** Elements scored, and how long it took. */
  scanned: number;
  ms: number;
}

/** The page's elements ranked against `stored`, best first (phase one, then phase two), and how many were scanned. */
export function rank(
  stored: Fingerprint,
  must: Element[] = [],
  root: Document = document,
): [Ranked[], number] {
  const els = candidates(root);
  const qs = new Float64Array(els.length);
  const ids = new Float64Array(els.length);
  const q = quick(stored, qs, ids);
  for (let i = 0; i < els.length; i++) q(els[i]!, i);
  // Without identity evidence an element cannot reach MIN_IDENTITY, unless its name comes from
  // what phase one does not read (a field's label, aria-labelledby): fields and unnamed
  // fingerprints keep every candidate, the others only those with some of the identity.
  const needsId =
    stored.label === undefined && !/^(?:input|select|textarea)$/.test(stored.tag) && hasIdentity(stored);
  const order: number[] = [];
  for (let i = 0; i < els.length; i++) if (qs[i]! > 0 && (!needsId || ids[i]! > 0)) order.push(i);
  order.sort((a, b) => qs[b]! - qs[a]!);
  // the best TOP and their ties; but only those within half the best's score, when the best
  // stands out (a test id, the text), beyond the first few
  const best = qs[order[0] ?? 0] ?? 0;
  const cutoff = Math.max(qs[order[Math.min(TOP, order.length) - 1] ?? 0] ?? 0, best / 2);
  let tied = order.filter((i, n) => n < FEW || qs[i]! >= cutoff);
  if (needsId && tied.length < FEW) {
    // nothing with its identity: the few best by layout still get a full look (for `ambiguous`)
    for (let i = 0; i < els.length && tied.length < FEW; i++)
      if (qs[i]! > 0 && !tied.includes(i)) tied.push(i);
  }
  if (tied.length > MAX_FULL) {
    // more look-alikes than phase two takes (a table's buttons): the neighbouring words decide
    const near = nearWords(stored);
    const score1 = new Map(tied.map((i) => [i, qs[i]! * 100 + near(els[i]!)]));
    tied = tied.sort((a, b) => score1.get(b)! - score1.get(a)!).slice(0, MAX_FULL);
  }
  const chosen = new Set<Element>(must);
  for (const i of tied) chosen.add(els[i]!);
  const full: Ranked[] = [];
  for (const el of chosen) {
    if (!el.isConnected || !visible(el)) continue;
    full.push({ el, ...score(stored, fingerprint(el)) });
  }
  full.sort((a, b) => b.score - a.score);
  return [full, els.length];
}

/**
 * Which element `stored` describes. `matches` are what the authored selector found (none, one
 * the quick check doubted, or several). With matches: the fingerprint's clear winner (`found`
 * when it is one of them, `healed` when the fingerprint wins over the selector), else the clear
 * winner among the matches, else a lone match that shares some of the identity or is user
 * content nothing contradicts (`found`), else `ambiguous` (acceptable look-alikes too close to
 * call) or `missing`. Without: the clear winner (`healed`), else `ambiguous` when acceptable candidates
 * are too close to call, else `missing`.
 */
export function resolve(stored: Fingerprint, matches: Element[] = [], root: Document = document): Healed {
  const t0 = performance.now();
  const [ranked, scanned] = rank(stored, matches, root);
  const done = (el: Element | null, outcome: LookupOutcome, r?: Ranked): Healed => {
    const out: Healed = { el, outcome, scanned, ms: performance.now() - t0 };
    if (r) out.confidence = Math.round(r.score * 100) / 100;
    if (el) out.fingerprint = fingerprint(el);
    if (el && outcome === 'healed') out.suggested = propose(el) ?? undefined;
    return out;
  };
  const best = clearWinner(ranked);
  if (matches.length > 0) {
    if (best) return done(best.el, matches.includes(best.el) ? 'found' : 'healed', best);
    const among = ranked.filter((r) => matches.includes(r.el));
    const winner = clearWinner(among);
    if (winner) return done(winner.el, 'found', winner);
    // A lone match the fingerprint does not confirm is kept when it shares some of the identity
    // (a control's label edited), or is not a control (its text is the user's data) and nothing
    // contradicts it (id, test id, name, href).
    const only = among[0];
    if (
      matches.length === 1 &&
      only &&
      (only.identity >= KEEP_IDENTITY ||
        (!isControl(stored) &&
          stored.tag === only.el.tagName.toLowerCase() &&
          !contradicts(stored, fingerprint(only.el))))
    ) {
      return done(only.el, 'found', only);
    }
    // look-alikes too close to call, or nothing that is the element at all
    return done(null, acceptable(ranked[0]) ? 'ambiguous' : 'missing', among[0]);
  }
  if (best) return done(best.el, 'healed', best);
  return done(null, acceptable(ranked[0]) ? 'ambiguous' : 'missing', ranked[0]);
}
