import type { AppDeps, Job } from '../deps.js';

/**
 * Schedules background jobs (every module's, from `deps.modules.jobs`, unless told which): each
 * runs on its interval, never overlapping itself, and can be woken to run at once. The work
 * itself lives in the modules; jobs coordinate across instances through the database.
 */
export interface WorkerHandle {
  /** Runs a job now instead of waiting for its next tick (e.g. right after new work is committed). */
  wake(name: string): void;
  stop(): Promise<void>;
}

export function startWorkers(deps: AppDeps, jobs: readonly Job[] = deps.modules.jobs): WorkerHandle {
  let stopping = false;
  const loops = new Map(
    jobs.map((job) => {
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
        loop.running = job
          .run(deps)
          .catch((err) => deps.log.error({ err, job: job.name }, 'job run failed'))
          .finally(() => {
            loop.busy = false;
            if (stopping) return;
            const delay = loop.again ? 0 : job.intervalMs;
            loop.again = false;
            loop.timer = setTimeout(tick, delay);
          });
      };
      loop.timer = setTimeout(tick, job.intervalMs);
      return [job.name, { job, loop, tick }] as const;
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
      for (const { job } of loops.values()) {
        if (!job.runOnStop) continue;
        await job.run(deps).catch((err) => deps.log.error({ err, job: job.name }, 'final job run failed'));
      }
    },
  };
}
