import type { AppDeps } from '../deps.js';

/**
 * A background job run on a fixed interval, never overlapping itself. Jobs coordinate across
 * instances through the database (row locks, SKIP LOCKED, conditional updates), never memory.
 */
export interface Worker {
  name: string;
  intervalMs: number;
  run(deps: AppDeps): Promise<void>;
  /** Run once more while stopping (flushes buffered state). */
  runOnStop?: boolean;
}

export interface WorkerHandle {
  /** Runs a worker now instead of waiting for its next tick (e.g. right after new work is committed). */
  wake(name: string): void;
  stop(): Promise<void>;
}

export function startWorkers(deps: AppDeps, workers: Worker[]): WorkerHandle {
  let stopping = false;
  const loops = new Map(
    workers.map((worker) => {
      const loop = {
        timer: undefined as NodeJS.Timeout | undefined,
        running: Promise.resolve(),
        again: false,
        busy: false,
      };
      const tick = () => {
        clearTimeout(loop.timer);
        if (stopping) return;
        if (loop.busy) {
          loop.again = true;
          return;
        }
        loop.busy = true;
        loop.running = worker
          .run(deps)
          .catch((err) => deps.log.error({ err, worker: worker.name }, 'worker run failed'))
          .finally(() => {
            loop.busy = false;
            if (stopping) return;
            const delay = loop.again ? 0 : worker.intervalMs;
            loop.again = false;
            loop.timer = setTimeout(tick, delay);
          });
      };
      loop.timer = setTimeout(tick, worker.intervalMs);
      return [worker.name, { worker, loop, tick }] as const;
    }),
  );
  return {
    wake(name) {
      loops.get(name)?.tick();
    },
    async stop() {
      stopping = true;
      for (const { loop } of loops.values()) clearTimeout(loop.timer);
      await Promise.all([...loops.values()].map(({ loop }) => loop.running));
      for (const { worker } of loops.values()) {
        if (!worker.runOnStop) continue;
        await worker
          .run(deps)
          .catch((err) => deps.log.error({ err, worker: worker.name }, 'final worker run failed'));
      }
    },
  };
}
