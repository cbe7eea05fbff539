import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher.js';

describe('createBatcher', () => {
  it('joins the calls of one event-loop turn into one statement (the default)', async () => {
    const runs: number[][] = [];
    const batcher = createBatcher<number, number>({
      run: async (items) => {
        runs.push(items);
        return items;
      },
    });
    expect(await Promise.all([1, 2, 3].map((i) => batcher.load(i)))).toEqual([1, 2, 3]);
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('coalesces calls made while a statement runs into the next one', async () => {
    const runs: number[][] = [];
    const batcher = createBatcher<number, number>({
      defer: false,
      async run(items) {
        runs.push(items);
        await new Promise((r) => setTimeout(r, 5));
        return items.map((i) => i * 2);
      },
    });
    const results = await Promise.all([1, 2, 3, 4].map((i) => batcher.load(i)));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });

  it('fails only the bad item when a shared statement fails', async () => {
    const batcher = createBatcher<number, number>({
      async run(items) {
        if (items.includes(13)) throw new Error('unlucky');
        return items;
      },
    });
    const settled = await Promise.allSettled([1, 13, 2].map((i) => batcher.load(i)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('rejects the call of a failed statement', async () => {
    const batcher = createBatcher<number, number>({
      run: async () => Promise.reject(new Error('x')),
    });
    await expect(batcher.load(1)).rejects.toThrow('x');
  });

  it('drains: resolves once nothing is queued or running', async () => {
    let done = 0;
    const batcher = createBatcher<number, void>({
      defer: false,
      async run(items) {
        await new Promise((r) => setTimeout(r, 5));
        done += items.length;
        return items.map(() => undefined);
      },
    });
    void batcher.load(1);
    void batcher.load(2);
    await batcher.drain();
    expect(done).toBe(2);
  });
});
