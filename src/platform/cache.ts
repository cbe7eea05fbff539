/**
 * A read-through cache for hot paths (SDK config, API keys): entries live `ttlMs`, concurrent
 * misses of one key share one load, and `invalidate(key)` drops the entry and any load in
 * flight. A load that an invalidation overtook still answers the callers that were waiting for
 * it (they asked before the change), but is not kept: later callers load afresh, so a change
 * is seen at once on the instance that made it and, through the invalidation bus, elsewhere.
 * Beyond `maxEntries` the oldest entry goes.
 */
export interface LoadingCacheOptions<V> {
  load(key: string): Promise<V>;
  ttlMs: number;
  maxEntries: number;
  clock: () => number;
}

export function createLoadingCache<V>(opts: LoadingCacheOptions<V>) {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  const loading = new Map<string, Promise<V>>();
  const generation = new Map<string, number>();

  function miss(key: string): Promise<V> {
    const pending = loading.get(key);
    if (pending) return pending;
    const gen = generation.get(key) ?? 0;
    const started = opts.load(key).then(
      (value) => {
        if (loading.get(key) === started) loading.delete(key);
        if ((generation.get(key) ?? 0) === gen) {
          entries.delete(key);
          if (entries.size >= opts.maxEntries) entries.delete(entries.keys().next().value!);
          entries.set(key, { value, expiresAt: opts.clock() + opts.ttlMs });
        }
        return value;
      },
      (err) => {
        if (loading.get(key) === started) loading.delete(key);
        throw err;
      },
    );
    loading.set(key, started);
    return started;
  }

  return {
    /** The cached value (synchronously on a hit), else the shared load. */
    get(key: string): V | Promise<V> {
      const hit = entries.get(key);
      if (hit && hit.expiresAt > opts.clock()) return hit.value;
      return miss(key);
    },
    invalidate(key: string): void {
      entries.delete(key);
      loading.delete(key);
      const next = (generation.get(key) ?? 0) + 1;
      generation.delete(key); // re-inserted last, so the eviction below drops the oldest
      generation.set(key, next);
      if (generation.size > opts.maxEntries) generation.delete(generation.keys().next().value!);
    },
  };
}
export type LoadingCache<V> = ReturnType<typeof createLoadingCache<V>>;
