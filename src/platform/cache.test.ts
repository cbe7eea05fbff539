import { describe, expect, it } from 'vitest';
import { createLoadingCache } from './cache.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('createLoadingCache', () => {
  it('shares one load between concurrent misses and serves hits synchronously until the TTL', async () => {
    let now = 0;
    let loads = 0;
    const cache = createLoadingCache({
      load: async (k) => `${k}:${++loads}`,
      ttlMs: 100,
      maxEntries: 10,
      clock: () => now,
    });
    const [a, b] = await Promise.all([cache.get('x'), cache.get('x')]);
    expect([a, b, loads]).toEqual(['x:1', 'x:1', 1]);
    expect(cache.get('x')).toBe('x:1');
    now = 101;
    expect(await cache.get('x')).toBe('x:2');
  });

  it('does not keep a load an invalidation overtook; later callers load afresh', async () => {
    const gates: ReturnType<typeof deferred<string>>[] = [];
    const cache = createLoadingCache({
      load: () => {
        const d = deferred<string>();
        gates.push(d);
        return d.promise;
      },
      ttlMs: 1000,
      maxEntries: 10,
      clock: () => 0,
    });
    const early = cache.get('k') as Promise<string>;
    cache.invalidate('k');
    const late = cache.get('k') as Promise<string>;
    expect(gates).toHaveLength(2);
    gates[0]!.resolve('stale');
    gates[1]!.resolve('fresh');
    expect(await early).toBe('stale');
    expect(await late).toBe('fresh');
    expect(cache.get('k')).toBe('fresh');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    let loads = 0;
    const cache = createLoadingCache({
      load: async (k) => `${k}${++loads}`,
      ttlMs: 1000,
      maxEntries: 2,
      clock: () => 0,
    });
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.get('b')).toBe('b2');
    expect(await cache.get('a')).toBe('a4');
  });

  it('does not cache failures', async () => {
    let calls = 0;
    const cache = createLoadingCache({
      load: async () => {
        if (++calls === 1) throw new Error('down');
        return 'ok';
      },
      ttlMs: 1000,
      maxEntries: 2,
      clock: () => 0,
    });
    await expect(cache.get('k')).rejects.toThrow('down');
    expect(await cache.get('k')).toBe('ok');
  });
});
