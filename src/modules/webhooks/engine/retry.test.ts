import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextAttemptAt, retryDelay } from './retry.js';

const policy = { baseMs: 30_000, maxMs: 72 * 3_600_000 };

describe('retry schedule', () => {
  it('doubles from the base, with ±20 % jitter', () => {
    expect(retryDelay(1, 30_000, 0.5)).toBe(30_000);
    expect(retryDelay(2, 30_000, 0.5)).toBe(60_000);
    expect(retryDelay(3, 30_000, 0.5)).toBe(120_000);
    expect(retryDelay(1, 30_000, 0)).toBe(24_000);
    expect(retryDelay(1, 30_000, 0.999999)).toBe(36_000);
  });

  it('retries for at most the maximum period, the last attempt at the deadline', () => {
    const createdAt = 0;
    expect(nextAttemptAt({ createdAt, now: 1000, attempts: 1, random: 0.5 }, policy)).toBe(31_000);
    const late = policy.maxMs - 1000;
    expect(nextAttemptAt({ createdAt, now: late, attempts: 12, random: 0.5 }, policy)).toBe(policy.maxMs);
    expect(nextAttemptAt({ createdAt, now: policy.maxMs, attempts: 13, random: 0.5 }, policy)).toBeNull();
  });

  it('properties: later than now, never past the deadline, growing with the attempts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: policy.maxMs - 1 }),
        (attempts, random, now) => {
          const next = nextAttemptAt({ createdAt: 0, now, attempts, random }, policy)!;
          expect(next).toBeGreaterThan(now);
          expect(next).toBeLessThanOrEqual(policy.maxMs);
          expect(retryDelay(attempts + 1, policy.baseMs, random)).toBeGreaterThan(
            retryDelay(attempts, policy.baseMs, random) * 1.5,
          );
        },
      ),
    );
  });

  it('with the defaults, a failing endpoint is tried about a dozen times over 3 days', () => {
    let now = 0;
    let attempts = 1;
    for (;;) {
      const next = nextAttemptAt({ createdAt: 0, now, attempts, random: 0.5 }, policy);
      if (next === null) break;
      now = next;
      attempts++;
    }
    expect(attempts).toBeGreaterThanOrEqual(12);
    expect(attempts).toBeLessThanOrEqual(15);
  });
});
