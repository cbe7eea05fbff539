import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { testRedisUrl } from '../../test/helpers/database.js';
import { randomHex } from './crypto.js';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from './rate-limit.js';
import { connectRedis } from './redis.js';

const WINDOW = 60_000;

/** Ordinals of `count` hits made in the same event-loop turn. */
const burst = (store: RateLimitStore, key: string, count: number) =>
  Promise.all(Array.from({ length: count }, () => store.hit(key, WINDOW)));

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const bursts = fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 8 });

describe('memoryRateLimitStore', () => {
  it('gives every hit of a window its own ordinal, and starts again in the next window', async () => {
    await fc.assert(
      fc.asyncProperty(bursts, async (sizes) => {
        const store = memoryRateLimitStore();
        const ordinals: number[] = [];
        for (const size of sizes) ordinals.push(...(await burst(store, 'k', size)));
        expect(ordinals.sort((a, b) => a - b)).toEqual(oneToN(ordinals.length));
        expect(await store.hit('k', 2 * WINDOW)).toBe(1);
      }),
    );
  });
});

describe.runIf(testRedisUrl())('redisRateLimitStore', () => {
  const redis = connectRedis(testRedisUrl()!);
  const prefix = `test:${randomHex(6)}:`;
  afterAll(() => redis.disconnect());

  it('gives every hit of one instance its own ordinal, however the hits are grouped', async () => {
    await fc.assert(
      fc.asyncProperty(bursts, async (sizes) => {
        const store = redisRateLimitStore(redis, prefix);
        const key = randomHex(6);
        const ordinals: number[] = [];
        for (const size of sizes) ordinals.push(...(await burst(store, key, size)));
        expect(ordinals.sort((a, b) => a - b)).toEqual(oneToN(ordinals.length));
        expect(Number(await redis.get(`${prefix}rl:${key}:${WINDOW}`))).toBe(ordinals.length);
      }),
      { numRuns: 30 },
    );
  });

  it('shares one budget between instances whose bursts arrive at the same time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 })), {
          minLength: 1,
          maxLength: 6,
        }),
        async (rounds) => {
          const stores = [redisRateLimitStore(redis, prefix), redisRateLimitStore(redis, prefix)];
          const key = randomHex(6);
          const ordinals: number[] = [];
          for (const [a, b] of rounds) {
            const both = await Promise.all([burst(stores[0]!, key, a), burst(stores[1]!, key, b)]);
            ordinals.push(...both.flat());
          }
          // Every hit of either instance has a distinct ordinal: the N+1st is refused exactly.
          expect(ordinals.sort((x, y) => x - y)).toEqual(oneToN(ordinals.length));
        },
      ),
      { numRuns: 30 },
    );
  });
});
