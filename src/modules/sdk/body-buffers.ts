/**
 * Reusable buffers for session answers (tens of kB each). A fresh buffer per answer costs far
 * more than filling it: the allocator hands freed memory back to the system, so each new answer's
 * pages fault in again (~14 page faults per 70 kB answer on the side-by-side fixture, most of the
 * copy's cost on this machine). A buffer comes back once its response has finished, i.e. every
 * byte was handed to the kernel; an answer that never finishes (connection lost) leaves its
 * buffer to the garbage collector. Only buffers taken here are ever kept.
 */
export interface BodyBuffers {
  /** A buffer of at least `size` bytes (its first `size` bytes are the caller's to fill). */
  take(size: number): Buffer;
  /** Hands back a buffer from `take` (or a view of one) whose bytes nobody reads any more. */
  give(buffer: Buffer): void;
}

/** Below this an answer is allocated as before (Node's own pool serves the smallest). */
export const MIN_POOLED_BYTES = 16 * 1024;

/** Capacity for `size`: rounded up to a quarter of its power of two (at most 25% unused). */
export function capacityOf(size: number): number {
  const step = 2 ** Math.max(0, Math.floor(Math.log2(size)) - 2);
  return Math.ceil(size / step) * step;
}

export function createBodyBuffers(opts: { maxFreeBytes?: number } = {}): BodyBuffers {
  const maxFreeBytes = opts.maxFreeBytes ?? 16 * 1024 * 1024;
  const free = new Map<number, ArrayBuffer[]>();
  const isFree = new Set<ArrayBuffer>();
  const owned = new WeakSet<ArrayBuffer>();
  let freeBytes = 0;
  return {
    take(size) {
      if (size < MIN_POOLED_BYTES) return Buffer.allocUnsafe(size);
      const capacity = capacityOf(size);
      const memory = free.get(capacity)?.pop();
      if (memory) {
        isFree.delete(memory);
        freeBytes -= capacity;
        return Buffer.from(memory);
      }
      const buffer = Buffer.allocUnsafeSlow(capacity);
      owned.add(buffer.buffer as ArrayBuffer);
      return buffer;
    },
    give(buffer) {
      const memory = buffer.buffer as ArrayBuffer;
      // A buffer handed back twice would serve two answers at once.
      if (!owned.has(memory) || isFree.has(memory) || freeBytes + memory.byteLength > maxFreeBytes) return;
      let list = free.get(memory.byteLength);
      if (!list) {
        list = [];
        free.set(memory.byteLength, list);
      }
      list.push(memory);
      isFree.add(memory);
      freeBytes += memory.byteLength;
    },
  };
}
