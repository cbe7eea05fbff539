import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE_DELAY_MS, MAX_DELAY_MS, retryAfterMs, retryable, retryDelay } from './backoff.js';

describe('retryDelay', () => {
  it('doubles from 1 s up to 60 s, jittered into [½, 1] of the step', () => {
    expect(retryDelay(1, null, () => 1)).toBe(1000);
    expect(retryDelay(1, null, () => 0)).toBe(500);
    expect(retryDelay(2, null, () => 1)).toBe(2000);
    expect(retryDelay(3, null, () => 1)).toBe(4000);
    expect(retryDelay(7, null, () => 1)).toBe(60_000);
    expect(retryDelay(40, null, () => 1)).toBe(60_000);
  });

  it('never retries sooner than Retry-After (seconds or an HTTP date)', () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    expect(retryDelay(1, '30', () => 0, now)).toBe(30_000);
    expect(retryDelay(1, 'Sun, 01 Mar 2026 10:00:12 GMT', () => 0, now)).toBe(12_000);
    // a Retry-After shorter than the backoff does not shorten it
    expect(retryDelay(6, '1', () => 1, now)).toBe(32_000);
  });

  it('stays within the bounds for any attempt, jitter and Retry-After (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
        (attempt, r, after) => {
          const step = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
          const d = retryDelay(attempt, after === null ? null : String(after), () => r);
          expect(d).toBeGreaterThanOrEqual(step / 2);
          expect(d).toBeGreaterThanOrEqual(Math.min(after ?? 0, 600) * 1000);
          expect(d).toBeLessThanOrEqual(Math.max(step, Math.min(after ?? 0, 600) * 1000));
        },
      ),
    );
  });

  it('grows monotonically with the attempt for a fixed jitter (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.double({ min: 0, max: 1, noNaN: true }), (a, r) => {
        expect(retryDelay(a + 1, null, () => r)).toBeGreaterThanOrEqual(retryDelay(a, null, () => r));
      }),
    );
  });
});

describe('retryAfterMs and retryable', () => {
  it('reads whole seconds and dates, ignores garbage, caps at ten minutes', () => {
    expect(retryAfterMs(null)).toBe(0);
    expect(retryAfterMs('soon')).toBe(0);
    expect(retryAfterMs('-5')).toBe(0);
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs('99999')).toBe(600_000);
  });

  it('retries network failures, 408, 429 and 5xx; never other 4xx', () => {
    expect([0, 408, 429, 500, 502, 503].every(retryable)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(retryable)).toBe(false);
  });
});
