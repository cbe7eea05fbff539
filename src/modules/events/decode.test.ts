import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBatchEvents, derivedEventId } from './decode.js';
import { DERIVED_ID_POSITIONS, eventsBody, MAX_EVENTS_PER_REQUEST } from './schema.js';

const batch = (receivedAt: Date) => ({
  id: '0190f3a2-0000-7000-8000-000000000abc',
  receivedAt,
  source: 'sdk' as const,
});

describe('decodeBatchEvents timestamps', () => {
  it('settles every timestamp the schema admits to the UTC toISOString form of the same instant', () => {
    const receivedAt = new Date('2030-01-01T00:00:00.000Z');
    const instant = fc.date({
      min: new Date('2000-01-01T00:00:00.000Z'),
      max: receivedAt,
      noInvalidDate: true,
    });
    const offsetMinutes = fc.integer({ min: -12 * 60, max: 14 * 60 });
    const written = fc
      .tuple(instant, offsetMinutes, fc.constantFrom('ms', 'seconds', 'offset'))
      .map(([d, off, form]) => {
        if (form === 'ms') return { text: d.toISOString(), ms: d.getTime() };
        if (form === 'seconds') {
          const whole = new Date(Math.floor(d.getTime() / 1000) * 1000);
          return { text: whole.toISOString().replace('.000Z', 'Z'), ms: whole.getTime() };
        }
        const local = new Date(d.getTime() + off * 60_000).toISOString().slice(0, 23);
        const sign = off < 0 ? '-' : '+';
        const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, '0');
        const mm = String(Math.abs(off) % 60).padStart(2, '0');
        return { text: `${local}${sign}${hh}:${mm}`, ms: d.getTime() };
      });
    fc.assert(
      fc.property(written, ({ text, ms }) => {
        const events = [{ type: 'CLICK', timestamp: text }];
        expect(eventsBody.safeParse({ events }).success).toBe(true);
        const [event] = decodeBatchEvents(batch(receivedAt), JSON.stringify({ events }));
        expect(event!.timestamp).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a canonical timestamp exactly when it lies between 2000 and five minutes past the receive time', () => {
    const receivedAt = new Date('2026-06-01T12:00:00.000Z');
    const around = fc.oneof(
      fc.integer({ min: -600_000, max: 600_000 }).map((d) => receivedAt.getTime() + 300_000 + d),
      fc.integer({ min: -600_000, max: 600_000 }).map((d) => Date.UTC(2000, 0, 1) + d),
      fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }),
    );
    fc.assert(
      fc.property(around, (ms) => {
        const text = new Date(ms).toISOString();
        const [event] = decodeBatchEvents(
          batch(receivedAt),
          JSON.stringify({ events: [{ type: 'CLICK', timestamp: text }] }),
        );
        const kept = ms >= Date.UTC(2000, 0, 1) && ms - receivedAt.getTime() <= 300_000;
        expect(event!.timestamp).toBe(kept ? text : receivedAt.toISOString());
      }),
      { numRuns: 1000 },
    );
  });

  it('uses the receive time for a missing, pre-2000 or far-future timestamp', () => {
    const receivedAt = new Date('2026-06-01T12:00:00.000Z');
    const events = [
      {},
      { timestamp: '1999-12-31T23:59:59.999Z' },
      { timestamp: '2026-06-01T12:05:00.001Z' },
      { timestamp: '2026-06-01T12:05:00.000Z' },
    ].map((e) => ({ type: 'CLICK', ...e }));
    const decoded = decodeBatchEvents(batch(receivedAt), JSON.stringify({ events }));
    expect(decoded.map((e) => e.timestamp)).toEqual([
      receivedAt.toISOString(),
      receivedAt.toISOString(),
      receivedAt.toISOString(),
      '2026-06-01T12:05:00.000Z',
    ]);
  });

  it('derives a distinct id for every position a request may hold, and refuses positions beyond 4,096', () => {
    const batchId = '0190f3a2-0000-7000-8000-000000000abc';
    const ids = new Set(Array.from({ length: DERIVED_ID_POSITIONS }, (_, i) => derivedEventId(batchId, i)));
    expect(ids.size).toBe(DERIVED_ID_POSITIONS);
    expect(MAX_EVENTS_PER_REQUEST).toBeLessThanOrEqual(DERIVED_ID_POSITIONS);
    expect(() => derivedEventId(batchId, DERIVED_ID_POSITIONS)).toThrow(RangeError);
    expect(
      eventsBody.safeParse({ events: Array(MAX_EVENTS_PER_REQUEST + 1).fill({ type: 'CLICK' }) }).success,
    ).toBe(false);
  });
});
