import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayFromEpoch, dayOf, epochDay, heatmapUrl } from './keys.js';
import { addActiveDays, decodeDays, encodeDays, FIRST_DAY, KnownDays } from './reach.js';

describe('reach points', () => {
  /** Feeds each user's days in the given chunks through addActiveDays, summing point changes. */
  function pointsOf(chunks: [user: number, day: number][][]) {
    const points = new Map<string, number>();
    const state = new Map<number, number[]>();
    for (const chunk of chunks) {
      const fresh = new Map<number, number[]>();
      for (const [u, d] of chunk) fresh.set(u, [...(fresh.get(u) ?? []), d]);
      for (const [u, days] of fresh) {
        // through the stored form, as between two chunks
        const stored = encodeDays(state.get(u) ?? []);
        const active = decodeDays(stored.origin, stored.bits);
        addActiveDays(active, days, (day, prev, n) => {
          const k = `${day}:${prev}`;
          points.set(k, (points.get(k) ?? 0) + n);
        });
        state.set(u, active);
      }
    }
    return [...points].map(([k, n]) => {
      const [day, prev] = k.split(':').map(Number) as [number, number];
      return { day, prev, n };
    });
  }

  it('count each user once in any range, whatever the order and chunking of their days (property)', () => {
    const visit = fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 }));
    fc.assert(
      fc.property(
        fc.array(fc.array(visit, { maxLength: 12 }), { maxLength: 6 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        (chunks, x, y) => {
          const [s, e] = [Math.min(x, y), Math.max(x, y)];
          const points = pointsOf(chunks);
          const counted = points
            .filter((p) => p.day >= s && p.day <= e && p.prev < s)
            .reduce((sum, p) => sum + p.n, 0);
          const expected = new Set(
            chunks
              .flat()
              .filter(([, d]) => d >= s && d <= e)
              .map(([u]) => u),
          ).size;
          expect(counted).toBe(expected);
          expect(points.every((p) => p.n >= 0)).toBe(true);
        },
      ),
    );
  });

  it('move the next day’s point when a day is added in between, and ignore repeats', () => {
    const changes: [number, number, number][] = [];
    const active = [10, 20];
    expect(addActiveDays(active, [15, 15, 20], (d, p, n) => changes.push([d, p, n]))).toBe(true);
    expect(active).toEqual([10, 15, 20]);
    expect(changes).toEqual([
      [20, 10, -1],
      [20, 15, 1],
      [15, 10, 1],
    ]);
    expect(addActiveDays(active, [10], () => {})).toBe(false);
    const first: [number, number, number][] = [];
    addActiveDays(active, [3], (d, p, n) => first.push([d, p, n]));
    expect(first).toEqual([
      [10, FIRST_DAY, -1],
      [10, 3, 1],
      [3, FIRST_DAY, 1],
    ]);
  });

  it('store days as an origin and a bit string', () => {
    expect(encodeDays([epochDay('2026-03-10'), epochDay('2026-03-12')])).toEqual({
      origin: epochDay('2026-03-10'),
      bits: '101',
    });
    expect(decodeDays(100, '0110')).toEqual([101, 102]);
    expect(encodeDays([])).toEqual({ origin: 0, bits: '' });
  });
});

describe('keys', () => {
  it('map timestamps to UTC days', () => {
    expect(dayOf('2026-03-10T23:59:59.999Z')).toBe('2026-03-10');
    expect(dayOf('2026-03-10T23:30:00-01:00')).toBe('2026-03-11');
    expect(epochDay('1970-01-02')).toBe(1);
  });

  it('map any sequence of timestamps to the days of their instants (the last UTC day is remembered)', () => {
    const forms = [
      (ms: number) => new Date(ms).toISOString(),
      (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z'),
      (ms: number) => new Date(ms).toISOString().replace('Z', '+05:30'),
      (ms: number) => new Date(ms).toISOString().replace('Z', '-01:00'),
      (ms: number) => new Date(ms).toISOString().slice(0, 19),
    ];
    const utcDayOf = (timestamp: string) => new Date(timestamp).toISOString().slice(0, 10);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: forms.length - 1 }),
            fc.integer({ min: 0, max: 3 * 86_400_000 }),
          ),
          { maxLength: 30 },
        ),
        (stamps) => {
          for (const [form, offset] of stamps) {
            const timestamp = forms[form]!(Date.UTC(2026, 2, 9) + offset);
            expect(dayOf(timestamp)).toBe(utcDayOf(timestamp));
          }
        },
      ),
    );
  });

  it('give every day its own epoch day, in any order (the last day is remembered)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40_000 }), { maxLength: 50 }), (days) => {
        for (const n of days) expect(epochDay(dayFromEpoch(n))).toBe(n);
      }),
    );
  });

  it('drop the fragment of heatmap urls', () => {
    expect(heatmapUrl('https://a.example/p?q=1#top')).toBe('https://a.example/p?q=1');
    expect(heatmapUrl('#top')).toBeNull();
    expect(heatmapUrl(undefined)).toBeNull();
  });
});

describe('known days', () => {
  it('cover a user’s fresh days only when each is among the remembered ones', () => {
    const known = new KnownDays();
    expect(known.covers('u', new Set([10]))).toBe(false);
    known.remember('u', [3, 10, 12]);
    expect(known.covers('u', new Set([10]))).toBe(true);
    expect(known.covers('u', new Set([12, 10]))).toBe(true);
    expect(known.covers('u', new Set([10, 11]))).toBe(false);
    expect(known.covers('u', new Set([13]))).toBe(false);
    expect(known.covers('other', new Set([10]))).toBe(false);
    // a row without days teaches nothing
    known.remember('empty', []);
    expect(known.covers('empty', new Set([0]))).toBe(false);
  });

  it('remember the last week of days before the latest only (property: never cover a day not remembered)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 30 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 5 }),
        (stored, fresh) => {
          const active = [...stored].sort((a, b) => a - b);
          const known = new KnownDays();
          known.remember('u', active);
          const last = active[active.length - 1]!;
          const kept = active.filter((d) => d >= last - 7);
          expect(known.covers('u', new Set(fresh))).toBe(fresh.every((d) => kept.includes(d)));
        },
      ),
    );
  });
});
