import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs, isRetryableStatus, retryAfterMs, shouldRetry } from './retry.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads seconds, fractions, HTTP dates and retry-after-ms, case-insensitively', () => {
    expect(retryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(retryAfterMs({ 'Retry-After': '0.25' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' }, now)).toBe(150);
  });

  it('ignores what it cannot read', () => {
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs({}, now)).toBeNull();
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(retryAfterMs({ 'retry-after': '-1' }, now)).toBeNull();
  });

  it('is never negative or NaN', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const v = retryAfterMs({ 'retry-after': a, 'retry-after-ms': b }, now);
        return v === null || (Number.isFinite(v) && v >= 0);
      }),
    );
  });
});

describe('backoffMs', () => {
  it('doubles from the base delay', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 100, null))).toEqual([100, 200, 400, 800]);
  });

  it('waits at least what the provider asked for, and at least the backoff', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: null }),
        (retry, base, asked) => {
          const d = backoffMs(retry, base, asked);
          return d >= base * 2 ** (retry - 1) && (asked === null || d >= asked);
        },
      ),
    );
  });
});

describe('shouldRetry', () => {
  it('never retries past the attempt cap or when the wait would end at or past the deadline', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        (attempts, maxAttempts, delayMs, left) => {
          const ok = shouldRetry({ attempts, maxAttempts, delayMs, nowMs: 1_000, deadlineMs: 1_000 + left });
          return ok === (attempts < maxAttempts && delayMs < left);
        },
      ),
    );
  });
});

describe('isRetryableStatus', () => {
  it('retries rate limits, timeouts and server errors, not client errors', () => {
    for (const s of [408, 409, 425, 429, 500, 502, 503, 504, 529]) expect(isRetryableStatus(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 413, 422]) expect(isRetryableStatus(s)).toBe(false);
  });
});
