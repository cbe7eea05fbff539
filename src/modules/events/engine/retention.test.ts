import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, type LogPartition, monthOf, monthsToPrepare, planRetention } from './retention.js';

const NOW = new Date('2026-12-07T15:30:00Z');
const DAY = Date.parse('2026-12-07T00:00:00Z');

/** Month partitions from `first` (YYYY-MM-01) for `count` months. */
function months(first: string, count: number): LogPartition[] {
  return Array.from({ length: count }, (_, i) => {
    const from = new Date(Date.parse(first));
    const start = monthOf(from, i);
    return {
      name: `event_batches_p${start.slice(0, 4)}_${start.slice(5, 7)}`,
      from: new Date(Date.parse(start)),
      until: new Date(Date.parse(monthOf(from, i + 1))),
    };
  });
}

describe('planRetention', () => {
  const tenants = [
    { tenantId: 'free', retentionDays: 30 },
    { tenantId: 'growth', retentionDays: 180 },
    { tenantId: 'big', retentionDays: 365 },
  ];

  it('cuts at the start of the UTC day minus the retention', () => {
    const plan = planRetention({ now: NOW, tenants, partitioned: false, partitions: [] });
    expect(plan.deleteBatches).toEqual([
      { tenantId: 'free', before: new Date(DAY - 30 * DAY_MS) },
      { tenantId: 'growth', before: new Date(DAY - 180 * DAY_MS) },
      { tenantId: 'big', before: new Date(DAY - 365 * DAY_MS) },
    ]);
    expect(plan.deleteDeadLetters).toEqual(plan.deleteBatches);
    expect(plan.drop).toEqual([]);
    expect(plan.horizon).toEqual(new Date(DAY - 365 * DAY_MS));
  });

  it('partitioned: drops the months that end by the longest cutoff; the longest retention is not DELETEd', () => {
    const partitions = months('2025-09-01', 18); // 2025-09 … 2027-02
    const plan = planRetention({ now: NOW, tenants, partitioned: true, partitions });
    // The longest cutoff is 2025-12-07: September to November 2025 ended before it.
    expect(plan.drop).toEqual(['event_batches_p2025_09', 'event_batches_p2025_10', 'event_batches_p2025_11']);
    expect(plan.deleteBatches.map((d) => d.tenantId)).toEqual(['free', 'growth']);
    expect(plan.deleteDeadLetters.map((d) => d.tenantId)).toEqual(['free', 'growth', 'big']);
  });

  it('a tenant that keeps events forever stops every drop, and the others are still DELETEd', () => {
    const plan = planRetention({
      now: NOW,
      tenants: [...tenants, { tenantId: 'forever', retentionDays: null }],
      partitioned: true,
      partitions: months('2020-01-01', 90),
    });
    expect(plan.horizon).toBeNull();
    expect(plan.drop).toEqual([]);
    expect(plan.deleteBatches.map((d) => d.tenantId)).toEqual(['free', 'growth', 'big']);
  });

  it('no tenant: nothing to drop (rows of no tenant are no reason to drop a month)', () => {
    const plan = planRetention({
      now: NOW,
      tenants: [],
      partitioned: true,
      partitions: months('2020-01-01', 10),
    });
    expect(plan.drop).toEqual([]);
  });

  it('never drops a month that holds a row some tenant still keeps (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 800 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 3_000 }),
        (days, shift) => {
          const now = new Date(NOW.getTime() + shift * DAY_MS);
          const ts = days.map((d, i) => ({ tenantId: `t${i}`, retentionDays: d }));
          const partitions = months('2023-01-01', 150);
          const plan = planRetention({ now, tenants: ts, partitioned: true, partitions });
          const dropped = partitions.filter((p) => plan.drop.includes(p.name));
          const day = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
          for (const t of ts) {
            const cutoff = day - t.retentionDays * DAY_MS;
            for (const p of dropped) expect(p.until.getTime()).toBeLessThanOrEqual(cutoff);
          }
        },
      ),
    );
  });
});

describe('monthsToPrepare', () => {
  it('this month and two more, plus the default partition’s months, once each, in order', () => {
    expect(monthsToPrepare(NOW, ['2027-01-01', '2024-03-01'])).toEqual([
      '2024-03-01',
      '2026-12-01',
      '2027-01-01',
      '2027-02-01',
    ]);
  });
});
