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
  /**
   * Counts one hit for `key` in the window starting at `windowStart`; returns the count so far
   * (this hit's ordinal), synchronously when the store can tell without a round trip.
   */
  hit(key: string, windowStart: number, limit: number): number | Promise<number>;
  /** Sends what is only counted locally; resolves once answered (at most a second). */
  close(): Promise<void>;
}

export function memoryRateLimitStore(): RateLimitStore {
  let window = 0;
  let counts = new Map<string, number>();
  return {
    hit(key, windowStart) {
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

/** Limits below this are always counted in Redis hit by hit. */
const MIN_LOCAL_LIMIT = 100;
/** Below this share of the limit an instance may count locally. */
const LOCAL_SHARE = 0.5;
/** How often locally counted hits are sent to Redis. */
const FLUSH_MS = 20;
/** An instance counts locally only from a total it heard from Redis this recently. */
const FRESH_MS = 100;

interface Waiter {
  resolve: (n: number) => void;
  reject: (e: unknown) => void;
}

/** One key of one window, as this instance knows it. */
interface KeyState {
  windowStart: number;
  /** The window's total in Redis at our last answer (-1: none, or dropped), and when that send left. */
  known: number;
  knownAt: number;
  /** Sends not answered yet, by sequence number: their hit counts. */
  inFlight: Map<number, number>;
  /** The last send's sequence number, and that of the send `known` came from. */
  seq: number;
  knownSeq: number;
  /** Hits admitted locally and not sent yet. */
  local: number;
  /** Hits waiting for their exact ordinal from Redis. */
  waiters: Waiter[];
}

/** The hits of the sends after `seq` still in flight (those a total from send `seq` does not include). */
function inFlightAfter(state: KeyState, seq: number): number {
  let n = 0;
  for (const [s, amount] of state.inFlight) if (s > seq) n += amount;
  return n;
}

/**
 * One budget for every instance, kept in Redis.
 *
 * Exact path: a hit waits for its ordinal from Redis; the hits of one key in one event-loop
 * turn share one scripted INCRBY and get its top ordinals, so the N+1st request of a window is
 * refused exactly, across any number of instances.
 *
 * Local path, for limits of 100 and more: while the total this instance heard from Redis for
 * a send of the last 100 ms, plus what it has counted since, is at most half the limit, a hit
 * is answered at once and sent to Redis with the others within 20 ms. One instance stays exact
 * (it knows every hit). Several stay exact unless the others spend more than half the limit
 * within those 100 ms; each instance counts at most half the limit locally in a window, so k
 * instances admit at most (k − 1) × half the limit too many. A failed send drops the view (the
 * next hits go exact) and counts its local hits again with the next one.
 */
export function redisRateLimitStore(redis: Redis, keyPrefix = 'guidance:'): RateLimitStore {
  const client = redis as Redis & {
    rateLimitHit?: (key: string, ttlMs: number, amount: number) => Promise<number>;
  };
  if (!client.rateLimitHit) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const keys = new Map<string, KeyState>();
  /** Keys with hits to send at the next flush. */
  const dirty = new Map<string, KeyState>();
  const answering = new Set<Promise<void>>();
  let window = 0;
  let immediate = false;
  let timer: NodeJS.Timeout | null = null;
  /** After close, nothing more is sent: the connection is going away. */
  let closed = false;

  const send = (full: string, state: KeyState) => {
    const waiters = state.waiters;
    const amount = state.local + waiters.length;
    if (amount === 0) return;
    const local = state.local;
    state.local = 0;
    state.waiters = [];
    const seq = ++state.seq;
    state.inFlight.set(seq, amount);
    // The view is as old as the moment Redis may have counted it, not as the answer.
    const sentAt = performance.now();
    const answered = client.rateLimitHit!(full, WINDOW_MS * 2, amount).then(
      (total) => {
        state.inFlight.delete(seq);
        // Redis counts sends in the order they left, so this total includes every earlier send.
        // One connection answers in that order too; should answers ever cross (commands resent
        // after a reconnect), an answer overtaken by a later one's changes nothing in the view.
        if (seq > state.knownSeq) {
          state.knownSeq = seq;
          state.known = total;
          state.knownAt = sentAt;
        }
        const first = total - waiters.length + 1;
        for (let i = 0; i < waiters.length; i++) waiters[i]!.resolve(first + i);
      },
      (err) => {
        state.inFlight.delete(seq);
        // The waiting requests fail (as any Redis error does). The locally admitted hits are
        // counted again with the next send, and the view is dropped: the next hits go exact.
        state.local += local;
        state.known = -1;
        if (local > 0 && !closed) {
          dirty.set(full, state);
          flushSoon();
        }
        for (const w of waiters) w.reject(err);
      },
    );
    answering.add(answered);
    void answered.finally(() => answering.delete(answered));
  };

  const flush = () => {
    immediate = false;
    if (timer) clearTimeout(timer);
    timer = null;
    for (const [full, state] of dirty) send(full, state);
    dirty.clear();
  };

  /** When a new window starts, the past windows' keys are forgotten (unless still in flight). */
  const forgetPastWindows = (windowStart: number) => {
    if (windowStart <= window) return;
    window = windowStart;
    for (const [full, state] of keys) {
      if (state.windowStart < windowStart && state.inFlight.size === 0 && !dirty.has(full)) keys.delete(full);
    }
  };

  const flushNow = () => {
    if (immediate) return;
    immediate = true;
    setImmediate(flush);
  };

  const flushSoon = () => {
    if (immediate || timer) return;
    timer = setTimeout(flush, FLUSH_MS);
    timer.unref();
  };

  return {
    hit(key, windowStart, limit) {
      forgetPastWindows(windowStart);
      const full = `${keyPrefix}rl:${key}:${windowStart}`;
      let state = keys.get(full);
      if (!state) {
        state = {
          windowStart,
          known: -1,
          knownAt: 0,
          inFlight: new Map(),
          seq: 0,
          knownSeq: 0,
          local: 0,
          waiters: [],
        };
        keys.set(full, state);
      }
      if (
        limit >= MIN_LOCAL_LIMIT &&
        state.waiters.length === 0 &&
        state.known >= 0 &&
        performance.now() - state.knownAt <= FRESH_MS
      ) {
        // Redis's total as last heard, the hits sent since, and those counted here since.
        const ordinal = state.known + inFlightAfter(state, state.knownSeq) + state.local + 1;
        if (ordinal <= limit * LOCAL_SHARE) {
          state.local++;
          dirty.set(full, state);
          flushSoon();
          return ordinal;
        }
      }
      const waiting = state;
      dirty.set(full, state);
      flushNow();
      return new Promise<number>((resolve, reject) => {
        waiting.waiters.push({ resolve, reject });
      });
    },
    async close() {
      flush();
      closed = true;
      const cap = new Promise((resolve) => setTimeout(resolve, 1000).unref());
      await Promise.race([Promise.allSettled(answering), cap]);
    },
  };
}

interface RateDecision {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export function createRateLimiter(limits: RateLimits, store: RateLimitStore, now: () => number = Date.now) {
  /** The scope's decision for `n` hits so far in the window starting at `windowStart`. */
  function decide(scope: RateScope, n: number, windowStart: number, t: number) {
    const limit = limits[scope];
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
    const windowStart = t - (t % WINDOW_MS);
    const active = scopes.filter((scope) => limits[scope] > 0);
    if (active.length === 0) return null;
    const hits = active.map((scope) => store.hit(`${scope}:${id}`, windowStart, limits[scope]));
    // Counted locally, every hit is a number: no event-loop turn is spent waiting.
    const counts = hits.every((h) => typeof h === 'number') ? hits : await Promise.all(hits);
    const counted = active.map((scope, i) => decide(scope, counts[i]!, windowStart, t));
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
