import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { testRedisUrl } from '../../test/helpers/database.js';
import { randomHex } from './crypto.js';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from './rate-limit.js';
import { connectRedis, type Redis } from './redis.js';

const WINDOW = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ordinals of `count` hits made in the same event-loop turn. */
const burst = (store: RateLimitStore, key: string, count: number, limit: number) =>
  Promise.all(Array.from({ length: count }, () => store.hit(key, WINDOW, limit)));

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const bursts = fc.array(fc.record({ size: fc.integer({ min: 1, max: 40 }), pause: fc.boolean() }), {
  minLength: 1,
  maxLength: 8,
});

describe('memoryRateLimitStore', () => {
  it('gives every hit of a window its own ordinal, and starts again in the next window', async () => {
    await fc.assert(
      fc.asyncProperty(bursts, async (sizes) => {
        const store = memoryRateLimitStore();
        const ordinals: number[] = [];
        for (const { size } of sizes) ordinals.push(...(await burst(store, 'k', size, 10)));
        expect(ordinals.sort((a, b) => a - b)).toEqual(oneToN(ordinals.length));
        expect(store.hit('k', 2 * WINDOW, 10)).toBe(1);
      }),
    );
  });
});

/**
 * A stand-in for Redis that counts as the script does and answers after 0–30 ms, in the order
 * of the sends (as one connection does, whatever the timers), so hits are made while sends are
 * in flight; `failNext` makes the next send fail uncounted.
 */
function slowRedis() {
  const totals = new Map<string, number>();
  let lastAnswer = 0;
  let previous: Promise<unknown> = Promise.resolve();
  const fake = {
    failNext: false,
    total: (key: string) => totals.get(`rl:${key}:${WINDOW}`) ?? 0,
    rateLimitHit(full: string, _ttl: number, amount: number): Promise<number> {
      const at = Math.max(lastAnswer, Date.now() + Math.random() * 30);
      lastAnswer = at;
      const fail = fake.failNext;
      fake.failNext = false;
      const total = (totals.get(full) ?? 0) + (fail ? 0 : amount);
      totals.set(full, total);
      const answer = previous
        .then(() => sleep(Math.max(0, at - Date.now())))
        .then(() => {
          if (fail) throw new Error('READONLY');
          return total;
        });
      previous = answer.catch(() => {});
      return answer;
    },
  };
  return { fake, store: redisRateLimitStore(fake as unknown as Redis, '') };
}

describe('redisRateLimitStore, against a slow Redis', () => {
  it('gives every hit its own ordinal when hits arrive at any time, sends in flight', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(50, 150, 1000),
        fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 300 }),
        async (limit, times) => {
          const { fake, store } = slowRedis();
          const ordinals = await Promise.all(
            times.map((ms) => sleep(ms).then(() => store.hit('k', WINDOW, limit))),
          );
          await store.close();
          expect(ordinals.sort((a, b) => a - b)).toEqual(oneToN(times.length));
          expect(fake.total('k')).toBe(times.length);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('keeps local ordinals exact when a later send is answered before an earlier one', async () => {
    // Redis counts in the order sends leave; the answers come back in whatever order the test says.
    const sends: { answer: () => void }[] = [];
    let total = 0;
    const fake = {
      rateLimitHit(_key: string, _ttl: number, amount: number): Promise<number> {
        total += amount;
        const counted = total;
        return new Promise((resolve) => sends.push({ answer: () => resolve(counted) }));
      },
    };
    // Fake clocks: the view's freshness (100 ms) must not depend on how loaded the machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    try {
      const store = redisRateLimitStore(fake as unknown as Redis, '');
      const first = store.hit('k', WINDOW, 1000);
      await vi.advanceTimersByTimeAsync(1);
      sends[0]!.answer();
      expect(await first).toBe(1);
      expect(store.hit('k', WINDOW, 1000)).toBe(2);
      await vi.advanceTimersByTimeAsync(30);
      expect(store.hit('k', WINDOW, 1000)).toBe(3);
      await vi.advanceTimersByTimeAsync(30);
      expect(sends).toHaveLength(3);
      sends[2]!.answer(); // the later send first: its total (3) includes the earlier one
      await vi.advanceTimersByTimeAsync(0);
      expect(store.hit('k', WINDOW, 1000)).toBe(4);
      sends[1]!.answer(); // the overtaken answer (2) changes nothing
      await vi.advanceTimersByTimeAsync(0);
      expect(store.hit('k', WINDOW, 1000)).toBe(5);
      const closing = store.close();
      for (const send of sends.slice(3)) send.answer();
      await closing;
      expect(total).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails the hits waiting on a failed send, and counts its local hits again without repeating an ordinal', async () => {
    const { fake, store } = slowRedis();
    expect(await store.hit('k', WINDOW, 1000)).toBe(1);
    const local = Array.from({ length: 10 }, () => store.hit('k', WINDOW, 1000));
    expect(local).toEqual(oneToN(11).slice(1));
    fake.failNext = true;
    await sleep(25);
    expect(fake.total('k')).toBe(1);
    // The send of the ten local hits failed: they are sent again with the next flush.
    await sleep(150);
    expect(fake.total('k')).toBe(11);
    // The view is gone: the next hit waits for its exact ordinal.
    const next = store.hit('k', WINDOW, 1000);
    expect(next).toBeInstanceOf(Promise);
    expect(await next).toBe(12);
    expect(fake.total('k')).toBe(12);

    const waiting = store.hit('w', WINDOW, 1000);
    fake.failNext = true;
    await expect(waiting).rejects.toThrow('READONLY');
  });

  it('lets k instances past a large limit by at most (k − 1) × half of it', async () => {
    const shared = slowRedis();
    const others = [0, 1].map(() => redisRateLimitStore(shared.fake as unknown as Redis, ''));
    const limit = 100;
    let admitted = 0;
    const count = (ordinals: number[]) => {
      admitted += ordinals.filter((o) => o <= limit).length;
    };
    // The others hear the total early, then one instance spends the whole budget at once,
    // and the others count locally from their (fresh but outdated) view.
    for (const other of others) count([await other.hit('k', WINDOW, limit)]);
    count(await burst(shared.store, 'k', limit, limit));
    for (const other of others) count(await burst(other, 'k', limit, limit));
    expect(admitted).toBeGreaterThan(limit);
    expect(admitted).toBeLessThanOrEqual(limit + 2 * (limit / 2));
  });
});

describe.runIf(testRedisUrl())('redisRateLimitStore', () => {
  const redis = connectRedis(testRedisUrl()!);
  const prefix = `test:${randomHex(6)}:`;
  const stored = async (key: string) => Number(await redis.get(`${prefix}rl:${key}:${WINDOW}`));
  afterAll(() => redis.disconnect());

  it('gives every hit of one instance its own ordinal, whatever the limit and the grouping', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(5, 60, 100, 150, 1000), bursts, async (limit, sizes) => {
        const store = redisRateLimitStore(redis, prefix);
        const key = randomHex(6);
        const ordinals: number[] = [];
        for (const { size, pause } of sizes) {
          ordinals.push(...(await burst(store, key, size, limit)));
          if (pause) await sleep(25);
        }
        expect(ordinals.sort((a, b) => a - b)).toEqual(oneToN(ordinals.length));
        await store.close();
        expect(await stored(key)).toBe(ordinals.length);
      }),
      { numRuns: 30 },
    );
  });

  it('answers at once far below a large limit, and tells Redis within 20 ms', async () => {
    const store = redisRateLimitStore(redis, prefix);
    const first = store.hit('far', WINDOW, 1000);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(1);
    expect(Array.from({ length: 10 }, () => store.hit('far', WINDOW, 1000))).toEqual(oneToN(11).slice(1));
    await sleep(40);
    expect(await stored('far')).toBe(11);
  });

  it('asks Redis from half the limit on, after a quiet spell, and always under a limit of 100', async () => {
    const store = redisRateLimitStore(redis, prefix);
    await store.hit('half', WINDOW, 100);
    expect(Array.from({ length: 49 }, () => store.hit('half', WINDOW, 100))).toEqual(oneToN(50).slice(1));
    const fiftyFirst = store.hit('half', WINDOW, 100);
    expect(fiftyFirst).toBeInstanceOf(Promise);
    expect(await fiftyFirst).toBe(51);

    // Another instance spends budget; after 100 ms of quiet this one asks Redis again.
    await store.hit('quiet', WINDOW, 1000);
    await redis.incrby(`${prefix}rl:quiet:${WINDOW}`, 300);
    await sleep(120);
    const after = store.hit('quiet', WINDOW, 1000);
    expect(after).toBeInstanceOf(Promise);
    expect(await after).toBe(302);

    await store.hit('small', WINDOW, 99);
    expect(store.hit('small', WINDOW, 99)).toBeInstanceOf(Promise);
  });

  it('shares a limit under 100 exactly between instances whose bursts arrive together', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 99 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 })), {
          minLength: 1,
          maxLength: 6,
        }),
        async (limit, rounds) => {
          const stores = [redisRateLimitStore(redis, prefix), redisRateLimitStore(redis, prefix)];
          const key = randomHex(6);
          const ordinals: number[] = [];
          for (const [a, b] of rounds) {
            const both = await Promise.all([
              burst(stores[0]!, key, a, limit),
              burst(stores[1]!, key, b, limit),
            ]);
            ordinals.push(...both.flat());
          }
          expect(ordinals.sort((x, y) => x - y)).toEqual(oneToN(ordinals.length));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('never refuses two instances within a large limit, and lets them past it by at most half of it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 100, max: 300 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 120 }), fc.boolean()), {
          minLength: 1,
          maxLength: 8,
        }),
        async (limit, rounds) => {
          const stores = [redisRateLimitStore(redis, prefix), redisRateLimitStore(redis, prefix)];
          const key = randomHex(6);
          let admitted = 0;
          let total = 0;
          for (const [a, b, pause] of rounds) {
            const both = await Promise.all([
              burst(stores[0]!, key, a, limit),
              burst(stores[1]!, key, b, limit),
            ]);
            admitted += both.flat().filter((o) => o <= limit).length;
            total += a + b;
            if (pause) await sleep(25);
          }
          expect(admitted).toBeGreaterThanOrEqual(Math.min(total, limit));
          expect(admitted).toBeLessThanOrEqual(limit + limit / 2);
        },
      ),
      { numRuns: 30 },
    );
  });
});
