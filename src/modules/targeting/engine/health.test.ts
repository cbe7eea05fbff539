import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprintIdentity } from '../../../engine/fingerprint.js';
import {
  attentionOf,
  becameBroken,
  bucketsOf,
  type Counts,
  chooseServed,
  healthStatusOf,
  hourOf,
  isTargetBroken,
  LOOKUP_OUTCOMES,
  type LookupReport,
  lookupReportOf,
  PICKED_WEIGHT,
  sightingsOf,
  type TenantReport,
} from './health.js';

const STEP = '0190a000-0000-7000-8000-00000000a001';
const FLOW = '0190a000-0000-7000-8000-00000000f001';
const fp = { v: 1 as const, tag: 'button', name: 'Save' };

describe('lookupReportOf', () => {
  const base = { itemKind: 'flow', itemId: FLOW, stepId: STEP, outcome: 'found', selector: '#save' };
  it('reads a flow step’s and a content item’s report', () => {
    expect(lookupReportOf({ ...base, fingerprint: fp })).toEqual({
      itemKind: 'flow',
      itemId: FLOW,
      targetId: STEP,
      outcome: 'found',
      selector: '#save',
      fingerprint: fp,
      suggestedSelector: null,
    });
    expect(lookupReportOf({ ...base, itemKind: 'content', stepId: null })?.targetId).toBe(FLOW);
  });
  it('keeps a fingerprint only when found or healed, a suggestion only when healed', () => {
    expect(lookupReportOf({ ...base, outcome: 'missing', fingerprint: fp })?.fingerprint).toBeNull();
    expect(
      lookupReportOf({ ...base, outcome: 'found', suggestedSelector: '#x' })?.suggestedSelector,
    ).toBeNull();
    expect(lookupReportOf({ ...base, outcome: 'healed', suggestedSelector: '#x' })?.suggestedSelector).toBe(
      '#x',
    );
    expect(lookupReportOf({ ...base, fingerprint: { tag: 'button' } })?.fingerprint).toBeNull(); // no version
    expect(
      lookupReportOf({ ...base, fingerprint: { ...fp, near: 'x'.repeat(5000) } })?.fingerprint,
    ).toBeNull();
  });
  it('refuses what is not a report', () => {
    for (const bad of [
      undefined,
      { ...base, itemKind: 'journey' },
      { ...base, itemId: 'flow-1' },
      { ...base, stepId: null },
      { ...base, outcome: 'lost' },
      { ...base, selector: '' },
      { ...base, selector: 'x'.repeat(1001) },
    ]) {
      expect(lookupReportOf(bad as Record<string, unknown> | undefined)).toBeNull();
    }
  });
});

const report = (outcome: LookupReport['outcome'], extra: Partial<LookupReport> = {}): LookupReport => ({
  itemKind: 'flow',
  itemId: FLOW,
  targetId: STEP,
  outcome,
  selector: '#save',
  fingerprint: null,
  suggestedSelector: null,
  ...extra,
});

const arbReport: fc.Arbitrary<TenantReport> = fc.record({
  tenantId: fc.constantFrom('t1', 't2'),
  at: fc.integer({ min: 0, max: 10 * 3_600_000 }).map((ms) => new Date(1_800_000_000_000 + ms)),
  report: fc
    .record({
      outcome: fc.constantFrom(...LOOKUP_OUTCOMES),
      selector: fc.constantFrom('#a', '#b'),
      targetId: fc.constantFrom(STEP, FLOW),
      suggested: fc.option(fc.constantFrom('#x', '#y'), { nil: null }),
      name: fc.option(fc.constantFrom('Save', 'Save changes'), { nil: null }),
    })
    .map((r) =>
      report(r.outcome, {
        selector: r.selector,
        targetId: r.targetId,
        suggestedSelector: r.outcome === 'healed' ? r.suggested : null,
        fingerprint:
          r.name && (r.outcome === 'found' || r.outcome === 'healed') ? { ...fp, name: r.name } : null,
      }),
    ),
});

describe('bucketsOf and sightingsOf (one row per key, nothing lost)', () => {
  it('sums outcomes per tenant, target, selector and hour', () => {
    const at = new Date('2027-01-01T10:20:00Z');
    const later = new Date('2027-01-01T10:40:00Z');
    const [b, ...rest] = bucketsOf([
      { tenantId: 't', at, report: report('found') },
      { tenantId: 't', at: later, report: report('healed', { suggestedSelector: '#new' }) },
      { tenantId: 't', at, report: report('healed', { suggestedSelector: '#old' }) },
      { tenantId: 't', at, report: report('missing') },
    ]);
    expect(rest).toEqual([]);
    expect(b).toMatchObject({
      hour: new Date('2027-01-01T10:00:00Z'),
      found: 1,
      healed: 2,
      missing: 1,
      ambiguous: 0,
      suggestedSelector: '#new',
      lastSeenAt: later,
    });
  });

  it('property: totals are kept, keys are unique, every bucket is within its hour', () => {
    fc.assert(
      fc.property(fc.array(arbReport, { maxLength: 60 }), (reports) => {
        const buckets = bucketsOf(reports);
        const keys = buckets.map((b) => `${b.tenantId}|${b.targetId}|${b.selector}|${b.hour.getTime()}`);
        expect(new Set(keys).size).toBe(keys.length);
        const total = buckets.reduce((n, b) => n + b.found + b.healed + b.ambiguous + b.missing, 0);
        expect(total).toBe(reports.length);
        for (const b of buckets) {
          expect(hourOf(b.lastSeenAt)).toEqual(b.hour);
          if (b.healed === 0) expect(b.suggestedSelector).toBeNull();
        }
        const sightings = sightingsOf(reports, fingerprintIdentity);
        expect(sightings.reduce((n, s) => n + s.count, 0)).toBe(
          reports.filter((r) => r.report.fingerprint).length,
        );
        const sKeys = sightings.map((s) => `${s.tenantId}|${s.targetId}|${s.selector}|${s.identity}`);
        expect(new Set(sKeys).size).toBe(sKeys.length);
      }),
    );
  });
});

describe('chooseServed', () => {
  it('serves the one seen most often; a picked one counts more; the incumbent keeps ties', () => {
    expect(chooseServed([], null)).toBeNull();
    expect(
      chooseServed(
        [
          { key: 'a', seenCount: 2, picked: false },
          { key: 'b', seenCount: 3, picked: false },
        ],
        'a',
      ),
    ).toBe('b');
    expect(
      chooseServed(
        [
          { key: 'a', seenCount: 3, picked: false },
          { key: 'b', seenCount: 3, picked: false },
        ],
        'b',
      ),
    ).toBe('b');
    expect(
      chooseServed(
        [
          { key: 'a', seenCount: 0, picked: true },
          { key: 'b', seenCount: PICKED_WEIGHT, picked: false },
        ],
        'a',
      ),
    ).toBe('a');
    expect(
      chooseServed(
        [
          { key: 'a', seenCount: 0, picked: true },
          { key: 'b', seenCount: PICKED_WEIGHT + 1, picked: false },
        ],
        'a',
      ),
    ).toBe('b');
  });
  it('property: the choice is a candidate of the greatest weight, whatever the order, and stable', () => {
    const arb = fc.uniqueArray(
      fc.record({
        key: fc.string({ minLength: 1, maxLength: 3 }),
        seenCount: fc.nat(20),
        picked: fc.boolean(),
      }),
      { selector: (c) => c.key, minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(arb, fc.option(fc.nat(7), { nil: null }), (cands, i) => {
        const w = (c: (typeof cands)[number]) => c.seenCount + (c.picked ? PICKED_WEIGHT : 0);
        const current = i === null ? null : (cands[i % cands.length]?.key ?? null);
        const chosen = chooseServed(cands, current)!;
        const max = Math.max(...cands.map(w));
        const picked = cands.find((c) => c.key === chosen)!;
        expect(w(picked)).toBe(max);
        expect(chooseServed([...cands].reverse(), current)).toBe(chosen);
        expect(chooseServed(cands, chosen)).toBe(chosen); // choosing again changes nothing
      }),
    );
  });
});

describe('isTargetBroken, attentionOf, healthStatusOf', () => {
  const c = (found: number, healed: number, ambiguous: number, missing: number): Counts => ({
    found,
    healed,
    ambiguous,
    missing,
  });
  it('is broken when most of at least 3 lookups failed', () => {
    expect(isTargetBroken(c(0, 0, 0, 2))).toBe(false); // too few
    expect(isTargetBroken(c(0, 0, 1, 2))).toBe(true);
    expect(isTargetBroken(c(1, 1, 0, 2))).toBe(false); // half is not most
    expect(isTargetBroken(c(0, 3, 0, 2))).toBe(false); // healed lookups showed the step
    expect(attentionOf(c(0, 0, 0, 3), c(0, 0, 0, 3))).toBe('hour');
    expect(attentionOf(c(0, 0, 0, 0), c(1, 0, 0, 3))).toBe('week');
    expect(attentionOf(c(1, 0, 0, 0), c(10, 0, 0, 3))).toBeNull();
    expect(healthStatusOf(c(0, 0, 0, 0))).toBe('unknown');
    expect(healthStatusOf(c(5, 0, 0, 0))).toBe('healthy');
    expect(healthStatusOf(c(5, 1, 0, 0))).toBe('warning');
    expect(healthStatusOf(c(0, 0, 0, 5))).toBe('broken');
  });
  it('property: broken exactly when failures are more than half of ≥ 3 lookups; monotone in failures', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.nat(50), fc.nat(50), (f, h, a, m) => {
        const counts = c(f, h, a, m);
        const total = f + h + a + m;
        expect(isTargetBroken(counts)).toBe(total >= 3 && 2 * (a + m) > total);
        if (isTargetBroken(counts)) expect(isTargetBroken(c(f, h, a, m + 1))).toBe(true);
      }),
    );
  });
});

describe('becameBroken (when target.broken fires)', () => {
  const c = (found: number, healed: number, ambiguous: number, missing: number): Counts => ({
    found,
    healed,
    ambiguous,
    missing,
  });
  it('fires on the chunk that turns the window broken, not on later ones that keep it broken', () => {
    expect(becameBroken(c(0, 0, 0, 3), c(0, 0, 0, 3))).toBe(true); // 3 misses at once
    expect(becameBroken(c(0, 0, 0, 3), c(0, 0, 0, 1))).toBe(true); // the third miss
    expect(becameBroken(c(0, 0, 0, 4), c(0, 0, 0, 1))).toBe(false); // already broken before
    expect(becameBroken(c(2, 0, 0, 3), c(2, 0, 0, 0))).toBe(false); // recovering
    expect(becameBroken(c(2, 0, 0, 3), c(0, 0, 0, 3))).toBe(true); // 2 of 2 found, then 3 misses
  });
  it('property: true exactly when broken with the chunk and not without it', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.nat(20)),
        fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.nat(20)),
        (before, added) => {
          const after = c(...(before.map((b, i) => b + added[i]!) as [number, number, number, number]));
          expect(becameBroken(after, c(...added))).toBe(
            isTargetBroken(after) && !isTargetBroken(c(...before)),
          );
        },
      ),
    );
  });
});

describe('fingerprintIdentity', () => {
  it('leaves the position out and does not depend on key order', () => {
    expect(fingerprintIdentity({ v: 1, tag: 'a', rect: [1, 2, 3, 4], name: 'x' })).toBe(
      fingerprintIdentity({ name: 'x', tag: 'a', v: 1, rect: [9, 9, 9, 9] }),
    );
    expect(fingerprintIdentity({ v: 1, tag: 'a', name: 'x' })).not.toBe(
      fingerprintIdentity({ v: 1, tag: 'a', name: 'y' }),
    );
  });
});
