/**
 * Coalesces concurrent calls into set-based statements (the event writer's group commit, the
 * session lookup): calls of one event-loop turn join one statement, and while `maxInFlight`
 * statements run, new calls queue and the next statement takes all of them (up to `maxBatch`).
 * Under load batches grow by themselves, so the database sees far fewer round trips than
 * requests, with no timer adding latency at rest. One statement at a time is the default: on
 * two shared cores it measured faster than several smaller ones in parallel, on PostgreSQL as
 * on PGlite (bench/README.md).
 */
export interface BatcherOptions<I, O> {
  /** Statements running at once (default 1). */
  maxInFlight?: number;
  maxBatch?: number;
  /** Start statements from a `setImmediate` (default) rather than at the first call. */
  defer?: boolean;
  /** One result per item, in the same order. */
  run(items: I[]): Promise<O[]>;
}

interface Waiter<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

export function createBatcher<I, O>(opts: BatcherOptions<I, O>) {
  const maxBatch = opts.maxBatch ?? 500;
  const maxInFlight = opts.maxInFlight ?? 1;
  const defer = opts.defer ?? true;
  let queue: Waiter<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;
  let idle: (() => void) | null = null;

  function schedule(): void {
    if (!defer) {
      pump();
      return;
    }
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const take = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = take === queue ? [] : queue.slice(maxBatch);
      inFlight++;
      opts
        .run(take.map((w) => w.item))
        .then(
          (results) => {
            for (let i = 0; i < take.length; i++) take[i]!.resolve(results[i] as O);
          },
          (err) => {
            if (take.length === 1) {
              take[0]!.reject(err);
              return;
            }
            // One bad item must not fail the others that shared its statement: run each alone.
            for (const w of take) {
              opts.run([w.item]).then(
                (results) => w.resolve(results[0] as O),
                (e) => w.reject(e),
              );
            }
          },
        )
        .finally(() => {
          inFlight--;
          schedule();
          if (inFlight === 0 && queue.length === 0) idle?.();
        });
    }
  }

  return {
    /** Resolves with this item's result once the statement that carried it has finished. */
    load(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
    /** Resolves when nothing is queued or running (graceful shutdown). */
    async drain(): Promise<void> {
      if (inFlight === 0 && queue.length === 0) return;
      await new Promise<void>((resolve) => {
        idle = resolve;
      });
    },
  };
}
export type Batcher<I, O> = ReturnType<typeof createBatcher<I, O>>;
