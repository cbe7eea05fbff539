import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capacityOf, createBodyBuffers, MIN_POOLED_BYTES } from './body-buffers.js';

describe('body buffers', () => {
  it('rounds capacities up by at most a quarter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1 << 26 }), (size) => {
        const capacity = capacityOf(size);
        expect(capacity).toBeGreaterThanOrEqual(size);
        expect(capacity).toBeLessThanOrEqual(Math.max(size * 1.25, size + 1));
      }),
    );
  });

  it('reuses a buffer handed back, and only once', () => {
    const bodies = createBodyBuffers();
    const a = bodies.take(70_000);
    expect(a.length).toBeGreaterThanOrEqual(70_000);
    bodies.give(a.subarray(0, 70_000));
    bodies.give(a);
    const b = bodies.take(69_000);
    expect(b.buffer).toBe(a.buffer);
    // Handed back twice, kept once: the next one is new memory.
    expect(bodies.take(69_000).buffer).not.toBe(a.buffer);
  });

  it('keeps no buffer it did not hand out, none below the pooled size, none beyond its budget', () => {
    const bodies = createBodyBuffers({ maxFreeBytes: 200_000 });
    const foreign = Buffer.allocUnsafeSlow(81_920);
    bodies.give(foreign);
    expect(bodies.take(70_000).buffer).not.toBe(foreign.buffer);

    const small = bodies.take(MIN_POOLED_BYTES - 1);
    expect(small.length).toBe(MIN_POOLED_BYTES - 1);
    bodies.give(small);
    expect(bodies.take(MIN_POOLED_BYTES - 1).buffer).not.toBe(small.buffer);

    const taken = [bodies.take(70_000), bodies.take(70_000), bodies.take(70_000)];
    for (const b of taken) bodies.give(b);
    const again = new Set(
      [bodies.take(70_000), bodies.take(70_000), bodies.take(70_000)].map((b) => b.buffer),
    );
    // Two of 80 kB fit in 200 kB: the third was left to the garbage collector.
    expect(taken.filter((b) => again.has(b.buffer))).toHaveLength(2);
  });
});
