import type { FastifyReply } from 'fastify';
import type { RateLimits } from '../config.js';
import { AppError } from './errors.js';
import type { Redis } from './redis.js';

/**
 * Fixed one-minute windows aligned to the clock (DECISIONS §5): the N+1st request of a window
 * is refused, and `RateLimit-Reset` counts the seconds until the window ends. A scope's budget
 * is shared by every route in that scope, and through Redis by every instance.
 */
export type RateScope = keyof RateLimits;

const WINDOW_MS = 60_000;

export interface RateLimitStore {
  /** Counts one hit for `key` in the window starting at `windowStart`; returns the count so far. */
  hit(key: string, windowStart: number): Promise<number>;
  close(): Promise<void>;
}

export function memoryRateLimitStore(): RateLimitStore {
  let window = 0;
  let counts = new Map<string, number>();
  return {
    async hit(key, windowStart) {
      if (windowStart !== window) {
        window = windowStart;
        counts = new Map();
      }
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return n;
    },
    async close() {},
  };
}

export function redisRateLimitStore(redis: Redis, keyPrefix = 'guidance:'): RateLimitStore {
  return {
    async hit(key, windowStart) {
      const k = `${keyPrefix}rl:${key}:${windowStart}`;
      const [[, count]] = (await redis
        .multi()
        .incr(k)
        .pexpire(k, WINDOW_MS * 2)
        .exec()) as [[Error | null, number]];
      return count;
    },
    async close() {},
  };
}

export interface RateDecision {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export function createRateLimiter(limits: RateLimits, store: RateLimitStore, now: () => number = Date.now) {
  return {
    isEnabled: (scope: RateScope) => limits[scope] > 0,
    /** Counts the request and sets the headers; throws RATE_LIMITED past the scope's limit. */
    async consume(scope: RateScope, id: string, reply: FastifyReply): Promise<RateDecision | null> {
      const limit = limits[scope];
      if (limit <= 0) return null;
      const t = now();
      const windowStart = t - (t % WINDOW_MS);
      const count = await store.hit(`${scope}:${id}`, windowStart);
      const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - t) / 1000));
      const remaining = Math.max(0, limit - count);
      reply.header('RateLimit-Limit', limit);
      reply.header('RateLimit-Remaining', remaining);
      reply.header('RateLimit-Reset', resetSeconds);
      if (count > limit) {
        reply.header('Retry-After', resetSeconds);
        throw new AppError(
          'RATE_LIMITED',
          `Rate limit of ${limit} requests a minute exceeded; retry in ${resetSeconds} s`,
        );
      }
      return { limit, remaining, resetSeconds };
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
