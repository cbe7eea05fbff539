import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyPolicy,
  byPriority,
  type Cap,
  type DeliveryPolicy,
  PERIOD_MS,
  type PolicyHistory,
  type PolicyItem,
  type ServedEntry,
} from './policy.js';

const H = PERIOD_MS.hour;
const D = PERIOD_MS.day;
const NOW = 100 * PERIOD_MS.week;

const item = (id: string, over: Partial<PolicyItem> = {}): PolicyItem => ({
  id,
  priority: 0,
  publishedAt: 0,
  scopes: ['all', 'flows'],
  bypassCaps: false,
  autoStart: true,
  ...over,
});
const ann = (id: string, over: Partial<PolicyItem> = {}) =>
  item(id, { scopes: ['all', 'announcements', 'modal-like'], ...over });
const served = (itemId: string, agoMs: number, scopes: string[] = ['all', 'flows']): ServedEntry => ({
  itemId,
  scopes,
  at: NOW - agoMs,
});
const policy = (over: Partial<DeliveryPolicy> = {}): DeliveryPolicy => ({
  caps: [],
  cooldownSeconds: 0,
  afterDismissDays: null,
  ...over,
});
const cap = (scope: string, max: number, per: Cap['per']): Cap => ({ scope, max, per });
const history = (s: ServedEntry[] = [], dismissed: [string, number][] = []): PolicyHistory => ({
  served: s,
  dismissedAt: new Map(dismissed.map(([id, ago]) => [id, NOW - ago])),
});

/** Each item's outcome: 'SHOWN' or its reason code. */
function outcome(items: PolicyItem[], p: DeliveryPolicy, h: PolicyHistory = history()) {
  const r = applyPolicy(items, p, h, NOW);
  return Object.fromEntries(items.map((it, i) => [it.id, r.shown[i] ? 'SHOWN' : r.verdicts.get(i)!.reason]));
}

describe('delivery policy: scenarios (caps × scopes × periods × priority × bypass × dismiss)', () => {
  const scenarios: {
    name: string;
    items: PolicyItem[];
    policy: DeliveryPolicy;
    history?: PolicyHistory;
    expected: Record<string, string>;
  }[] = [
    {
      name: 'no policy: everything shows',
      items: [item('a'), item('b')],
      policy: policy(),
      expected: { a: 'SHOWN', b: 'SHOWN' },
    },
    {
      name: '1 per session (all): the higher priority wins, the other is LOWER_PRIORITY',
      items: [item('low', { priority: -1 }), item('high', { priority: 3 })],
      policy: policy({ caps: [cap('all', 1, 'session')] }),
      expected: { high: 'SHOWN', low: 'LOWER_PRIORITY' },
    },
    {
      name: 'ties of priority: the most recently published first',
      items: [item('old', { publishedAt: 1 }), item('new', { publishedAt: 2 })],
      policy: policy({ caps: [cap('flows', 1, 'session')] }),
      expected: { new: 'SHOWN', old: 'LOWER_PRIORITY' },
    },
    {
      name: '2 per session: two of three',
      items: [item('a', { priority: 3 }), item('b', { priority: 2 }), item('c', { priority: 1 })],
      policy: policy({ caps: [cap('all', 2, 'session')] }),
      expected: { a: 'SHOWN', b: 'SHOWN', c: 'LOWER_PRIORITY' },
    },
    {
      name: 'a flows cap leaves announcements alone',
      items: [item('f1', { priority: 2 }), item('f2'), ann('a1')],
      policy: policy({ caps: [cap('flows', 1, 'session')] }),
      expected: { f1: 'SHOWN', f2: 'LOWER_PRIORITY', a1: 'SHOWN' },
    },
    {
      name: 'a modal-like cap counts modal announcements and modal flows together',
      items: [ann('a1', { priority: 5 }), item('f1', { scopes: ['all', 'flows', 'modal-like'] }), item('f2')],
      policy: policy({ caps: [cap('modal-like', 1, 'session')] }),
      expected: { a1: 'SHOWN', f1: 'LOWER_PRIORITY', f2: 'SHOWN' },
    },
    {
      name: '1 per hour: served 30 min ago → CAPPED',
      items: [item('b')],
      policy: policy({ caps: [cap('all', 1, 'hour')] }),
      history: history([served('a', 30 * 60_000)]),
      expected: { b: 'CAPPED' },
    },
    {
      name: '1 per day: a concurrent session took the slot 1 ms after this one read its clock → CAPPED',
      items: [item('b')],
      policy: policy({ caps: [cap('all', 1, 'day')] }),
      history: history([served('a', -1)]),
      expected: { b: 'CAPPED' },
    },
    {
      name: 'cooldown: another item served by a concurrent session just after this clock reading → COOLDOWN',
      items: [item('b')],
      policy: policy({ cooldownSeconds: 600 }),
      history: history([served('a', -1)]),
      expected: { b: 'COOLDOWN' },
    },
    {
      name: '1 per hour: served 61 min ago → shown again',
      items: [item('b')],
      policy: policy({ caps: [cap('all', 1, 'hour')] }),
      history: history([served('a', 61 * 60_000)]),
      expected: { b: 'SHOWN' },
    },
    {
      name: '1 per day: the item already counted today may be served again (a tour in progress)',
      items: [item('a', { priority: -5 }), item('b', { priority: 5 })],
      policy: policy({ caps: [cap('all', 1, 'day')] }),
      history: history([served('a', 5 * H)]),
      expected: { a: 'SHOWN', b: 'CAPPED' },
    },
    {
      name: '2 per week: two others this week → CAPPED; one 8 days ago does not count',
      items: [item('c')],
      policy: policy({ caps: [cap('flows', 2, 'week')] }),
      history: history([served('a', 2 * D), served('b', 6 * D)]),
      expected: { c: 'CAPPED' },
    },
    {
      name: '2 per week: one this week, one 8 days ago → one slot left, taken by the higher priority',
      items: [item('c', { priority: 1 }), item('d')],
      policy: policy({ caps: [cap('flows', 2, 'week')] }),
      history: history([served('a', 2 * D), served('b', 8 * D)]),
      expected: { c: 'SHOWN', d: 'LOWER_PRIORITY' },
    },
    {
      name: 'a day cap of announcements ignores the flows served',
      items: [ann('a1')],
      policy: policy({ caps: [cap('announcements', 1, 'day')] }),
      history: history([served('f', H)]),
      expected: { a1: 'SHOWN' },
    },
    {
      name: 'several caps: the tightest one holds',
      items: [item('c')],
      policy: policy({ caps: [cap('all', 10, 'day'), cap('flows', 1, 'hour')] }),
      history: history([served('a', 10 * 60_000)]),
      expected: { c: 'CAPPED' },
    },
    {
      name: 'bypassCaps passes every cap and the cooldown, and does not count',
      items: [ann('critical', { bypassCaps: true, priority: -9 }), item('f', { priority: 1 })],
      policy: policy({ caps: [cap('all', 1, 'session')], cooldownSeconds: 60 }),
      expected: { critical: 'SHOWN', f: 'SHOWN' },
    },
    {
      name: 'bypassCaps even when the window is full',
      items: [ann('critical', { bypassCaps: true })],
      policy: policy({ caps: [cap('all', 1, 'day')] }),
      history: history([served('x', H)]),
      expected: { critical: 'SHOWN' },
    },
    {
      name: 'manual items are never held back',
      items: [item('m', { autoStart: false }), item('a')],
      policy: policy({ caps: [cap('all', 1, 'day')] }),
      history: history([served('x', H)]),
      expected: { m: 'SHOWN', a: 'CAPPED' },
    },
    {
      name: 'cooldown: another item served 10 s ago → COOLDOWN',
      items: [item('b')],
      policy: policy({ cooldownSeconds: 60 }),
      history: history([served('a', 10_000)]),
      expected: { b: 'COOLDOWN' },
    },
    {
      name: 'cooldown: the same item served 10 s ago is no reason',
      items: [item('a')],
      policy: policy({ cooldownSeconds: 60 }),
      history: history([served('a', 10_000)]),
      expected: { a: 'SHOWN' },
    },
    {
      name: 'cooldown passed: shown; within one session only the first starts',
      items: [item('b', { priority: 1 }), item('c')],
      policy: policy({ cooldownSeconds: 60 }),
      history: history([served('a', 61_000)]),
      expected: { b: 'SHOWN', c: 'LOWER_PRIORITY' },
    },
    {
      name: 'afterDismissDays: dismissed 2 days ago with 7 → DISMISSED; 8 days ago → back',
      items: [item('recent'), item('old')],
      policy: policy({ afterDismissDays: 7 }),
      history: history(
        [],
        [
          ['recent', 2 * D],
          ['old', 8 * D],
        ],
      ),
      expected: { recent: 'DISMISSED', old: 'SHOWN' },
    },
    {
      name: 'afterDismissDays holds back bypassCaps items too (the user said no)',
      items: [ann('critical', { bypassCaps: true })],
      policy: policy({ afterDismissDays: 1 }),
      history: history([], [['critical', H]]),
      expected: { critical: 'DISMISSED' },
    },
  ];

  it.each(scenarios)('$name', ({ items, policy: p, history: h, expected }) => {
    expect(outcome(items, p, h)).toEqual(expected);
  });

  it('orders by priority descending, then most recently published, then id', () => {
    const list = [
      item('b', { priority: 0, publishedAt: 5 }),
      item('a', { priority: 0, publishedAt: 5 }),
      item('c', { priority: -2, publishedAt: 9 }),
      item('d', { priority: 4, publishedAt: 1 }),
      item('e', { priority: 0, publishedAt: 7 }),
    ];
    expect([...list].sort(byPriority).map((i) => i.id)).toEqual(['d', 'e', 'a', 'b', 'c']);
  });
});

// ---- properties -----------------------------------------------------------------------------

const IDS = ['i0', 'i1', 'i2', 'i3', 'i4', 'i5'];
const SCOPE_SETS = [
  ['all', 'flows'],
  ['all', 'flows', 'modal-like'],
  ['all', 'announcements', 'modal-like'],
  ['all', 'surveys'],
];
/** An item's scopes are a fact of the item (its kind and steps): the same in every session. */
const scopesOf = (id: string) => SCOPE_SETS[IDS.indexOf(id) % SCOPE_SETS.length]!;
const arbItems = fc.uniqueArray(
  fc
    .record({
      id: fc.constantFrom(...IDS),
      priority: fc.integer({ min: -3, max: 3 }),
      publishedAt: fc.integer({ min: 0, max: 5 }),
      bypassCaps: fc.boolean(),
      autoStart: fc.boolean(),
    })
    .map((i) => ({ ...i, scopes: scopesOf(i.id) })),
  { selector: (i) => i.id, maxLength: 6 },
);
const arbCap = fc.record({
  scope: fc.constantFrom('all', 'flows', 'announcements', 'modal-like', 'surveys'),
  max: fc.integer({ min: 1, max: 3 }),
  per: fc.constantFrom('session' as const, 'hour' as const, 'day' as const),
});
const arbPolicy = fc.record({
  caps: fc.array(arbCap, { maxLength: 3 }),
  cooldownSeconds: fc.constantFrom(0, 0, 600),
  afterDismissDays: fc.constant(null),
});

const inScope = (c: Cap, scopes: readonly string[]) => c.scope === 'all' || scopes.includes(c.scope);

/** Whether serving `set` (countable items) now is within every cap and the cooldown, given `h`. */
function allowed(set: PolicyItem[], p: DeliveryPolicy, h: ServedEntry[], now: number): boolean {
  const ids = new Set(set.map((i) => i.id));
  if (p.cooldownSeconds > 0 && set.length > 0) {
    if (set.length > 1) return false;
    for (const s of h) if (!ids.has(s.itemId) && now - s.at < p.cooldownSeconds * 1000) return false;
  }
  for (const c of p.caps) {
    const occupied = new Set<string>();
    if (c.per !== 'session') {
      for (const s of h) if (s.at > now - PERIOD_MS[c.per] && inScope(c, s.scopes)) occupied.add(s.itemId);
    }
    const fresh = set.filter((i) => inScope(c, i.scopes) && !occupied.has(i.id)).length;
    if (c.per === 'session') {
      if (set.filter((i) => inScope(c, i.scopes)).length > c.max) return false;
    } else if (fresh > 0 && occupied.size + fresh > c.max) return false;
  }
  return true;
}

describe('delivery policy: properties', () => {
  it('never serves more than max distinct items of a scope in any window, over a run of sessions', () => {
    fc.assert(
      fc.property(
        arbPolicy,
        fc.array(fc.tuple(arbItems, fc.integer({ min: 1, max: 90 * 60_000 })), {
          minLength: 1,
          maxLength: 12,
        }),
        (p, sessions) => {
          let now = NOW;
          const ledger = new Map<string, ServedEntry>();
          const log: { id: string; scopes: readonly string[]; at: number }[] = [];
          for (const [items, gap] of sessions) {
            now += gap;
            const r = applyPolicy(items, p, { served: [...ledger.values()], dismissedAt: new Map() }, now);
            const session = r.counted.map((k) => items[k]!);
            for (const it of session) {
              ledger.set(it.id, { itemId: it.id, scopes: it.scopes, at: now });
              log.push({ id: it.id, scopes: it.scopes, at: now });
            }
            for (const c of p.caps) {
              const inWindow = (at: number) =>
                c.per === 'session' ? at === now : at > now - PERIOD_MS[c.per] && at <= now;
              const distinct = new Set(
                log.filter((e) => inWindow(e.at) && inScope(c, e.scopes)).map((e) => e.id),
              );
              if (c.per === 'session') {
                const thisSession = session.filter((i) => inScope(c, i.scopes)).length;
                if (thisSession > c.max) return false;
              } else if (distinct.size > c.max) return false;
            }
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('serves the highest-priority allowed set: allowed, maximal, and no lower item beats a higher one', () => {
    fc.assert(
      fc.property(
        arbPolicy,
        arbItems,
        fc.array(
          fc.record({
            itemId: fc.constantFrom(...IDS, 'x0', 'x1'),
            scopes: fc.constantFrom(...SCOPE_SETS),
            at: fc.integer({ min: NOW - 2 * D, max: NOW }),
          }),
          { maxLength: 4 },
        ),
        (p, items, h) => {
          const r = applyPolicy(items, p, { served: h, dismissedAt: new Map() }, NOW);
          const countable = items.filter((i) => i.autoStart && !i.bypassCaps);
          // uncountable items always pass
          items.forEach((it, k) => {
            if (!it.autoStart || it.bypassCaps) expect(r.shown[k]).toBe(true);
          });
          const shownSet = countable.filter((i) => r.shown[items.indexOf(i)]);
          expect(allowed(shownSet, p, h, NOW)).toBe(true);
          const order = [...countable].sort(byPriority);
          for (const x of countable) {
            if (r.shown[items.indexOf(x)]) continue;
            // maximal: adding any held-back item breaks a cap or the cooldown
            expect(allowed([...shownSet, x], p, h, NOW)).toBe(false);
            // greedy in priority order: the items shown before x, with x, are not allowed
            const before = order.slice(0, order.indexOf(x)).filter((i) => r.shown[items.indexOf(i)]);
            expect(allowed([...before, x], p, h, NOW)).toBe(false);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
