import { and, eq, lte } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { jobLeases } from '../db/schema/index.js';

/**
 * A periodic job that must run once across instances, and at most once per period, whatever the
 * number of instances ticking it (migration 0097). A run claims the job's row only when it is due,
 * in one statement, so of concurrent claims exactly one wins; the winner holds it until `leaseMs`
 * has passed (a run that dies is taken over then) and, when done, says when the job is due next.
 * Works the same on PostgreSQL and on one embedded database shared by several apps, where a
 * session advisory lock would not (one connection holds every lock).
 */

/** Claims the job `name` for `holder` if it is due at `now`; true when this run is to do the work. */
export async function claimJobLease(
  exec: Executor,
  name: string,
  holder: string,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  const until = new Date(now.getTime() + leaseMs);
  const rows = await exec
    .insert(jobLeases)
    .values({ name, dueAt: until, holder })
    .onConflictDoUpdate({
      target: jobLeases.name,
      set: { dueAt: until, holder },
      setWhere: lte(jobLeases.dueAt, now),
    })
    .returning({ name: jobLeases.name });
  return rows.length === 1;
}

/**
 * Ends `holder`'s run of `name`, if the lease is still its own: the job is next due at `nextDue`;
 * `ranAt` records a completed run (a failed run passes null).
 */
export async function releaseJobLease(
  exec: Executor,
  name: string,
  holder: string,
  next: { nextDue: Date; ranAt: Date | null },
): Promise<void> {
  await exec
    .update(jobLeases)
    .set({
      dueAt: next.nextDue,
      holder: null,
      ...(next.ranAt ? { lastRunAt: next.ranAt } : {}),
    })
    .where(and(eq(jobLeases.name, name), eq(jobLeases.holder, holder)));
}
