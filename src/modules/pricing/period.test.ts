import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths, currentPeriod } from './period.js';

const d = (s: string) => new Date(s);

describe('addMonths', () => {
  it('clamps the day to the target month and keeps the time', () => {
    expect(addMonths(d('2024-01-31T12:34:56.789Z'), 1).toISOString()).toBe('2024-02-29T12:34:56.789Z');
    expect(addMonths(d('2023-01-31T00:00:00Z'), 1).toISOString()).toBe('2023-02-28T00:00:00.000Z');
    expect(addMonths(d('2024-01-31T00:00:00Z'), 2).toISOString()).toBe('2024-03-31T00:00:00.000Z');
    expect(addMonths(d('2024-12-15T08:00:00Z'), 1).toISOString()).toBe('2025-01-15T08:00:00.000Z');
    expect(addMonths(d('2024-03-31T00:00:00Z'), -1).toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });
});

describe('currentPeriod', () => {
  const start = d('2024-01-31T12:00:00Z');
  const end = addMonths(start, 1);

  it('keeps the stored period while it runs', () => {
    expect(currentPeriod(start, end, d('2024-02-10T00:00:00Z'))).toEqual({ start, end });
  });

  it('rolls forward from the anchor without drifting', () => {
    expect(currentPeriod(start, end, end)).toEqual({ start: end, end: d('2024-03-31T12:00:00Z') });
    expect(currentPeriod(start, end, d('2024-04-15T00:00:00Z'))).toEqual({
      start: d('2024-03-31T12:00:00Z'),
      end: d('2024-04-30T12:00:00Z'),
    });
    expect(currentPeriod(start, end, d('2027-06-01T00:00:00Z')).start.toISOString()).toBe(
      '2027-05-31T12:00:00.000Z',
    );
  });

  it('always answers a one-month period that contains now', () => {
    fc.assert(
      fc.property(
        fc.date({ min: d('2000-01-01'), max: d('2040-01-01'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 400 * 86_400_000 * 3 }),
        (anchor, gap) => {
          const now = new Date(anchor.getTime() + gap);
          const p = currentPeriod(anchor, addMonths(anchor, 1), now);
          expect(p.start.getTime()).toBeLessThanOrEqual(now.getTime());
          expect(p.end.getTime()).toBeGreaterThan(now.getTime());
          expect(p.start.getUTCDate()).toBe(
            Math.min(
              anchor.getUTCDate(),
              new Date(Date.UTC(p.start.getUTCFullYear(), p.start.getUTCMonth() + 1, 0)).getUTCDate(),
            ),
          );
        },
      ),
    );
  });
});
