/**
 * Lazy chunk `chunks/heal.js`: finds a step's target again by its fingerprint, loaded only when a
 * selector found nothing (3 s after the page settled), found several elements, or found one that
 * does not look like the fingerprint. Two phases, to stay within milliseconds on large pages:
 * every element (open shadow roots and same-origin iframes included) is scored on what is cheap
 * to read (tag, role, id, attributes, classes, a leaf's text); the best are fingerprinted in full
 * (label, landmark, heading, neighbouring text, path, position) and scored again.
 */
import { norm, walk } from '../target/deep.js';
import { attrsOf, classesOf, contradicts, fingerprint, isControl, roleOf } from '../target/fingerprint.js';
import { propose } from '../target/propose.js';
import { clearWinner, KEEP_IDENTITY, type Ranked, score } from '../target/score.js';
import type { Fingerprint, LookupOutcome } from '../target/types.js';

export { agrees, fingerprint } from '../target/fingerprint.js';
export { propose } from '../target/propose.js';

/** Elements fingerprinted in full (phase two): the best of phase one, ties included up to MAX_FULL. */
const TOP = 40;
const MAX_FULL = 120;
const SKIP = /^(?:SCRIPT|STYLE|TEMPLATE|NOSCRIPT|HEAD|META|LINK|BR|WBR|path|g|defs|use|symbol)$/;

/** What phase one reads of an element. */
function lite(el: Element): Fingerprint {
  const fp: Fingerprint = { v: 1, tag: el.tagName.toLowerCase() };
  const role = roleOf(el);
  if (role) fp.role = role;
  if (el.id) fp.id = el.id;
  const attrs = attrsOf(el);
  if (attrs) fp.attrs = attrs;
  const classes = classesOf(el);
  if (classes) fp.classes = classes;
  if (el.childElementCount <= 3) {
    const text = norm(el.textContent).slice(0, 80);
    if (text) fp.text = text;
  }
  const name = el.getAttribute('aria-label') || fp.text || attrs?.placeholder || attrs?.title;
  if (name) fp.name = norm(name).slice(0, 80);
  return fp;
}

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

/** The page's elements ranked against `stored`, best first (phase one, then phase two). */
export function rank(
  stored: Fingerprint,
  must: Element[] = [],
  root: Document = document,
): [Ranked[], number] {
  const cands: Ranked[] = [];
  walk(root, (el) => {
    if (SKIP.test(el.tagName) || el.hasAttribute('data-guidance-root')) return false;
    cands.push({ el, ...score(stored, lite(el), true) });
    return true;
  });
  cands.sort((a, b) => b.score - a.score);
  const cutoff = cands[Math.min(TOP, cands.length) - 1]?.score ?? 0;
  const chosen = new Set<Element>(must);
  for (const c of cands) {
    if (chosen.size >= MAX_FULL || (chosen.size >= TOP && c.score < cutoff - 1e-9)) break;
    chosen.add(c.el);
  }
  const full: Ranked[] = [];
  for (const el of chosen) {
    if (!el.isConnected || !visible(el)) continue;
    full.push({ el, ...score(stored, fingerprint(el)) });
  }
  full.sort((a, b) => b.score - a.score);
  return [full, cands.length];
}

/**
 * Which element `stored` describes. `matches` are what the authored selector found (none, one
 * the quick check doubted, or several). With matches: the fingerprint's clear winner (`found`
 * when it is one of them, `healed` when the fingerprint wins over the selector), else the clear
 * winner among the matches, else a lone match that shares some of the identity or is user
 * content nothing contradicts (`found`), else `ambiguous`. Without: the clear winner (`healed`), else `ambiguous` when acceptable candidates
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
    return done(null, 'ambiguous', among[0]);
  }
  if (best) return done(best.el, 'healed', best);
  const top = ranked[0];
  const close = top && clearWinner([top]) !== null;
  return done(null, close ? 'ambiguous' : 'missing', top);
}
