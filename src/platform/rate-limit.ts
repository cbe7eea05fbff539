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

const HIT_SCRIPT = `local n = redis.call('INCRBY', KEYS[1], ARGV[2])
if n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Hits of one key that arrive in the same event-loop turn (concurrent requests of one API key
 * under load) are counted by ONE scripted INCRBY; each request still gets its own exact
 * ordinal (total − n + 1 … total), so the N+1st request of a window is refused exactly as with
 * one increment each, across any number of instances.
 */
export function redisRateLimitStore(redis: Redis, keyPrefix = 'guidance:'): RateLimitStore {
  const client = redis as Redis & {
    rateLimitHit?: (key: string, ttlMs: number, amount: number) => Promise<number>;
  };
  if (!client.rateLimitHit) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  let pending = new Map<string, { resolve: (n: number) => void; reject: (e: unknown) => void }[]>();
  const flush = () => {
    const batch = pending;
    pending = new Map();
    for (const [key, waiters] of batch) {
      client.rateLimitHit!(key, WINDOW_MS * 2, waiters.length).then(
        (total) => {
          const first = total - waiters.length + 1;
          for (let i = 0; i < waiters.length; i++) waiters[i]!.resolve(first + i);
        },
        (err) => {
          for (const w of waiters) w.reject(err);
        },
      );
    }
  };
  return {
    hit(key, windowStart) {
      const full = `${keyPrefix}rl:${key}:${windowStart}`;
      return new Promise<number>((resolve, reject) => {
        if (pending.size === 0) setImmediate(flush);
        const waiters = pending.get(full);
        if (waiters) waiters.push({ resolve, reject });
        else pending.set(full, [{ resolve, reject }]);
      });
    },
    async close() {},
  };
}

interface RateDecision {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export function createRateLimiter(limits: RateLimits, store: RateLimitStore, now: () => number = Date.now) {
  /** Counts one hit in `scope`'s current window; null when the scope is off. */
  async function count(scope: RateScope, id: string, t: number) {
    const limit = limits[scope];
    if (limit <= 0) return null;
    const windowStart = t - (t % WINDOW_MS);
    const n = await store.hit(`${scope}:${id}`, windowStart);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - t) / 1000));
    return { limit, remaining: Math.max(0, limit - n), resetSeconds, exceeded: n > limit };
  }

  /**
   * Counts the request in every scope of `scopes` (one hit each) and sets the headers of the
   * binding one: the first exceeded scope, else the one with the fewest requests left (ties go
   * to the earlier scope). Throws RATE_LIMITED when any scope is past its limit.
   */
  async function consumeAll(
    scopes: RateScope[],
    id: string,
    reply: FastifyReply,
  ): Promise<RateDecision | null> {
    const t = now();
    const counted = (await Promise.all(scopes.map((scope) => count(scope, id, t)))).filter((d) => d !== null);
    if (counted.length === 0) return null;
    const binding =
      counted.find((d) => d.exceeded) ?? counted.reduce((min, d) => (d.remaining < min.remaining ? d : min));
    const { limit, remaining, resetSeconds } = binding;
    reply.header('RateLimit-Limit', limit);
    reply.header('RateLimit-Remaining', remaining);
    reply.header('RateLimit-Reset', resetSeconds);
    if (binding.exceeded) {
      reply.header('Retry-After', resetSeconds);
      throw new AppError(
        'RATE_LIMITED',
        `Rate limit of ${limit} requests a minute exceeded; retry in ${resetSeconds} s`,
      );
    }
    return { limit, remaining, resetSeconds };
  }

  return {
    /** Counts the request and sets the headers; throws RATE_LIMITED past the scope's limit. */
    consume: (scope: RateScope, id: string, reply: FastifyReply) => consumeAll([scope], id, reply),
    consumeAll,
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
