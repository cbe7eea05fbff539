/**
 * The healing scorer: weighted attribute similarity between a stored fingerprint and the page's
 * elements, in the Similo family (Nass et al., "Similarity-based web element localization",
 * ACM TOSEM 2023: every attribute compared with its own similarity function, weighted, summed),
 * with two guards of our own for the "no wrong anchor" bar: an element is taken only when its
 * IDENTITY (test id, id, name, text, label, href…) agrees, not just its surroundings, and when
 * it is clearly ahead of the runner-up.
 */
import { norm } from './deep.js';
import { TEST_ATTRS } from './generated.js';
import type { Fingerprint } from './types.js';

/** Weights of the fingerprint's fields (Similo's: 1.5 for identity, 0.5 for layout). */
export const WEIGHTS = {
  tag: 1,
  role: 0.75,
  id: 1.5,
  name: 1.5,
  text: 1.25,
  label: 1,
  classes: 0.75,
  landmark: 0.5,
  heading: 0.75,
  near: 1.25,
  path: 0.5,
  index: 0.25,
  scope: 0.75,
  rect: 0.5,
} as const;

/** Attribute weights (others: 0.75). */
const ATTR_WEIGHTS: Record<string, number> = {
  name: 1.5,
  href: 1,
  placeholder: 1,
  'aria-label': 1,
  value: 1,
  type: 0.5,
  for: 0.5,
  role: 0.25,
};
const attrWeight = (k: string) => (TEST_ATTRS.includes(k) ? 2 : (ATTR_WEIGHTS[k] ?? 0.75));
/** Attributes that say what an element is, not how it is laid out (all but these). */
const NOT_IDENTITY = /^(?:type|role|for)$/;

/** A candidate needs at least this score… */
export const MIN_SCORE = 0.5;
/** …or this one when the stored fingerprint has no identity at all (no text, name, id, test id…)… */
export const MIN_SCORE_NO_IDENTITY = 0.8;
/** …and this much of the stored identity… */
export const MIN_IDENTITY = 0.6;
/** …and this lead over the next best element. */
export const MIN_MARGIN = 0.08;
/** A lone selector match the fingerprint does not confirm is kept with this much identity (the text was edited, say). */
export const KEEP_IDENTITY = 0.5;

const wordCache = new Map<string, Set<string>>();

/** The words of `s` (camelCase split, lower case), cached: the same strings come up for every candidate. */
export function words(s: string): Set<string> {
  let w = wordCache.get(s);
  if (!w) {
    if (wordCache.size > 2000) wordCache.clear();
    w = new Set(
      s
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean),
    );
    wordCache.set(s, w);
  }
  return w;
}

/** Jaccard similarity of two word sets. */
function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const w of a) if (b.has(w)) both++;
  return both / (a.size + b.size - both);
}

/** Text similarity: 1 when equal (whitespace and case aside), else the word overlap. */
export function textSim(a: string, b: string): number {
  if (a === b) return 1;
  const x = norm(a).toLowerCase();
  const y = norm(b).toLowerCase();
  return x === y ? 1 : jaccard(words(x), words(y));
}

/** Longest common subsequence of two tag paths over the longer one: a wrapper added costs little. */
function pathSim(a: string, b: string): number {
  const x = a.split('>');
  const y = b.split('>');
  const row = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    let prev = 0;
    for (let j = 1; j <= y.length; j++) {
      const tmp = row[j]!;
      row[j] = x[i - 1] === y[j - 1] ? prev + 1 : Math.max(row[j]!, row[j - 1]!);
      prev = tmp;
    }
  }
  return row[y.length]! / Math.max(x.length, y.length);
}

function rectSim(a: number[], b: number[]): number {
  const d = Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!);
  const size = (u: number, v: number) => (Math.max(u, v) === 0 ? 1 : Math.min(u, v) / Math.max(u, v));
  return 0.5 * Math.max(0, 1 - d / 600) + 0.5 * size(a[2]!, b[2]!) * size(a[3]!, b[3]!);
}

export interface Score {
  /** Weighted similarity, 0–1. */
  score: number;
  /** The same over the identity fields only, 0–1 (1 when the id or a test id is the same); -1 when `stored` has none. */
  identity: number;
}

/** Fields a lite candidate (phase one of the search) has; the rest are left out of its score. */
export const LITE: ReadonlySet<string> = new Set(['tag', 'role', 'id', 'name', 'text', 'attrs', 'classes']);

/**
 * How much `cand` looks like `stored`. Every field `stored` has counts; a field `cand` lacks
 * scores 0 (with `lite`, fields outside LITE are left out instead).
 */
export function score(stored: Fingerprint, cand: Fingerprint, lite = false): Score {
  let sum = 0;
  let total = 0;
  let idSum = 0;
  let idTotal = 0;
  // the same id or test id: the page's own word that this is the element
  let strong = stored.id !== undefined && stored.id === cand.id;
  const add = (w: number, sim: number, identity: boolean) => {
    sum += w * sim;
    total += w;
    if (identity) {
      idSum += w * sim;
      idTotal += w;
    }
  };
  const field = (k: keyof typeof WEIGHTS, sim: (a: never, b: never) => number, identity = false) => {
    const a = stored[k];
    if (a === undefined || (lite && !LITE.has(k))) return;
    const b = cand[k];
    add(WEIGHTS[k], b === undefined ? 0 : sim(a as never, b as never), identity);
  };
  const eq = (a: unknown, b: unknown) => (a === b ? 1 : 0);
  field('tag', eq);
  field('role', eq);
  field('id', (a: string, b: string) => (a === b ? 1 : 0.5 * textSim(a, b)), true);
  field('name', textSim, true);
  field('text', textSim, true);
  field('label', textSim, true);
  field('classes', (a: string[], b: string[]) => jaccard(new Set(a), new Set(b)));
  field('landmark', textSim);
  field('heading', textSim);
  field('near', textSim);
  field('path', pathSim);
  field('index', eq);
  field('scope', (a: string[], b: string[]) => textSim(a.join(' '), b.join(' ')));
  field('rect', rectSim);
  for (const [k, v] of Object.entries(stored.attrs ?? {})) {
    const other = cand.attrs?.[k];
    if (other === v && TEST_ATTRS.includes(k)) strong = true;
    add(
      attrWeight(k),
      other === undefined ? 0 : other === v ? 1 : 0.5 * textSim(v, other),
      !NOT_IDENTITY.test(k),
    );
  }
  return { score: total > 0 ? sum / total : 0, identity: idTotal === 0 ? -1 : strong ? 1 : idSum / idTotal };
}

export interface Ranked extends Score {
  el: Element;
}

/** Good enough to anchor to, whatever the others score. */
export const acceptable = (c: Ranked | undefined): c is Ranked =>
  c !== undefined &&
  (c.identity < 0 ? c.score >= MIN_SCORE_NO_IDENTITY : c.score >= MIN_SCORE && c.identity >= MIN_IDENTITY);

/** The best of `ranked` (sorted, best first) when it is acceptable and clearly ahead; else null. */
export function clearWinner(ranked: Ranked[]): Ranked | null {
  const [best, second] = ranked;
  return acceptable(best) && (!second || best.score - second.score >= MIN_MARGIN) ? best : null;
}
