import { LRUCache } from 'lru-cache';

/**
 * A read-through cache for hot paths (SDK config, API keys), on `lru-cache` (bounded, least
 * recently used evicted, per-entry TTL against the injectable clock). On top of it: concurrent
 * misses of one key share one load, and `invalidate(key)` drops the entry and any load in flight.
 * A load that an invalidation overtook still answers the callers that were waiting for it (they
 * asked before the change) but is not kept, so later callers load afresh.
 */
export interface LoadingCacheOptions<V> {
  load(key: string): Promise<V>;
  ttlMs: number;
  maxEntries: number;
  clock: () => number;
}

/** lru-cache stores objects; a boxed value also lets a cached `null` (an unknown key) be a hit. */
interface Box<V> {
  value: V;
}

export function createLoadingCache<V>(opts: LoadingCacheOptions<V>) {
  const entries = new LRUCache<string, Box<V>>({
    max: opts.maxEntries,
    ttl: opts.ttlMs,
    // Expiry is judged with the app's clock (tests move it); no timers. lru-cache reads a start
    // time of 0 as "none", so the clock is seen one millisecond later (0 is a test clock's epoch).
    perf: { now: () => opts.clock() + 1 },
    ttlAutopurge: false,
    ttlResolution: 0,
  });
  const loading = new Map<string, { promise: Promise<V>; overtaken: boolean }>();

  function miss(key: string): Promise<V> {
    const pending = loading.get(key);
    if (pending) return pending.promise;
    const flight = { promise: opts.load(key), overtaken: false };
    loading.set(key, flight);
    flight.promise.then(
      (value) => {
        if (loading.get(key) === flight) loading.delete(key);
        if (!flight.overtaken) entries.set(key, { value });
      },
      () => {
        if (loading.get(key) === flight) loading.delete(key);
      },
    );
    return flight.promise;
  }

  return {
    /** The cached value (synchronously on a hit), else the shared load. */
    get(key: string): V | Promise<V> {
      const hit = entries.get(key);
      return hit ? hit.value : miss(key);
    },
    invalidate(key: string): void {
      entries.delete(key);
      const pending = loading.get(key);
      if (pending) {
        pending.overtaken = true;
        loading.delete(key);
      }
    },
    /** Drops everything (the change feed may have missed notifications). */
    clear(): void {
      entries.clear();
      for (const pending of loading.values()) pending.overtaken = true;
      loading.clear();
    },
  };
}
export type LoadingCache<V> = ReturnType<typeof createLoadingCache<V>>;
