import type { DatabaseHandle, Executor } from '../../../db/client.js';
import type { Job } from '../../../deps.js';
import type { RuleContext } from '../../../engine/rules.js';
import { readsContext } from '../engine/machine.js';
import { listEndUsersById } from '../store/end-users.js';
import { claimDueTimers, deleteTimers, findNextDueTime } from '../store/timers.js';
import { ruleContextFor } from './enroll.js';
import { graphsOf, type VersionHead, versionKey } from './graphs.js';
import { feed, type Live, persist, storedLive } from './persist.js';

/**
 * The timer job: fires due WAIT timers, WAIT_FOR_EVENT timeouts and goal deadlines.
 *
 * Each chunk is one transaction: it claims due timers together with their enrollments
 * (`FOR UPDATE OF t, e SKIP LOCKED`: an instance never waits for a row another holds, and never
 * takes a timer another instance has), steps each enrollment through the pure machine and writes
 * the result (`persist`), which replaces the fired timer by the new state's (a fired WAIT's row
 * becomes the next wait's, or is deleted). The timer changes in the same commit as the step it
 * caused, so it fires once across any number of instances, and a crash before the commit leaves
 * it due for the next run. A timer whose input no longer applies (stale) makes the enrollment's
 * timers rewritten from its state.
 */

// The claim follows the due_at index (the earliest first); the end user is read afterwards, only
// for the journeys whose steps read traits.

/** Rule contexts of the end users whose enrollments are stepped through a journey that reads them. */
async function contextsOf(tx: Executor, endUserIds: string[]): Promise<Map<string, RuleContext>> {
  const out = new Map<string, RuleContext>();
  if (endUserIds.length === 0) return out;
  for (const r of await listEndUsersById(tx, endUserIds))
    out.set(r.id, ruleContextFor(r.externalId, r.traits));
  return out;
}

/** Fires up to `limit` due timers in one transaction; returns how many were claimed. */
export async function fireTimerChunk(tx: Executor, now: Date, limit: number): Promise<number> {
  const claimed = await claimDueTimers(tx, now, limit);
  if (claimed.length === 0) return 0;
  // Each enrollment runs its own version of its journey.
  const heads: VersionHead[] = [];
  for (const c of claimed) {
    if (c.journeyVersion !== null)
      heads.push({ tenantId: c.tenantId, journeyId: c.journeyId, version: c.journeyVersion });
  }
  const graphs = await graphsOf(tx, heads);
  const graphOf = (c: (typeof claimed)[number]) =>
    c.journeyVersion === null ? undefined : graphs.get(versionKey(c.journeyId, c.journeyVersion));
  const contexts = await contextsOf(tx, [
    ...new Set(
      claimed
        .filter((c) => {
          const graph = graphOf(c);
          return graph !== undefined && readsContext(graph);
        })
        .map((c) => c.endUserId),
    ),
  ]);
  const lives = new Map<string, Live>();
  const stale: Live[] = [];
  const nowMs = now.getTime();
  for (const c of claimed) {
    let live = lives.get(c.enrollmentId);
    if (!live) {
      live = storedLive({
        id: c.enrollmentId,
        tenantId: c.tenantId,
        journeyId: c.journeyId,
        journeyVersion: c.journeyVersion,
        endUserId: c.endUserId,
        enrolledAt: c.enrolledAt,
        state: c.state,
      });
      lives.set(c.enrollmentId, live);
    }
    const graph = graphOf(c);
    if (!graph) continue; // the journey is being deleted: its enrollments go with it
    const input =
      c.kind === 'deadline'
        ? ({ type: 'deadline' } as const)
        : ({ type: 'timer', nodeId: c.nodeId!, visit: c.visit } as const);
    if (!feed(live, graph, input, { nowMs, context: contexts.get(c.endUserId) })) stale.push(live);
  }
  for (const live of stale) {
    live.stored = null;
    live.changed = true;
  }
  // A timer whose journey has no graph (being deleted) would otherwise stay due and be claimed
  // again on every run: it is dropped (the enrollment goes with its journey).
  const orphaned = claimed.filter((c) => !graphOf(c));
  for (const c of orphaned) lives.delete(c.enrollmentId);
  await deleteTimers(tx, orphaned);
  await persist(tx, [...lives.values()]);
  return claimed.length;
}

/** Timers claimed per transaction (PGlite runs one statement at a time: smaller chunks). */
export const timerChunkSize = (database: DatabaseHandle) => (database.kind === 'pglite' ? 500 : 2_000);

/**
 * Fires every timer due now, chunk after chunk; returns how many fired. On PostgreSQL four chunk
 * transactions run at once (SKIP LOCKED keeps them apart), so the database's cores share the work
 * (measured on two shared cores, 20,000 timers: 4.5k/s with one, 9.4k/s with two, 11k–13k/s with four).
 */
export async function fireDueTimers(
  deps: { database: DatabaseHandle; clock: () => number },
  opts: { chunk?: number; concurrency?: number } = {},
): Promise<number> {
  const chunk = opts.chunk ?? timerChunkSize(deps.database);
  const concurrency = opts.concurrency ?? (deps.database.kind === 'pglite' ? 1 : 4);
  let total = 0;
  const worker = async () => {
    for (;;) {
      const now = new Date(deps.clock());
      const n = await deps.database.db.transaction((tx) => fireTimerChunk(tx, now, chunk));
      total += n;
      if (n < chunk) return;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total;
}

/** Milliseconds until the next timer is due (null: none within `withinMs`). */
async function nextDueIn(deps: { database: DatabaseHandle; clock: () => number }, withinMs: number) {
  const now = deps.clock();
  const due = await findNextDueTime(deps.database.db, new Date(now + withinMs));
  return due === null ? null : Math.max(0, due - now);
}

export const JOURNEY_TIMERS = 'journey-timers';
const INTERVAL_MS = 250;

/**
 * Every 250 ms, and exactly when the next timer comes due when that is sooner: after a run the
 * job looks up the next due time and wakes itself then, so a timer fires within milliseconds.
 */
export const journeyTimersJob: Job = {
  name: JOURNEY_TIMERS,
  intervalMs: INTERVAL_MS,
  async run(deps) {
    const fired = await fireDueTimers(deps);
    if (fired > 0) deps.log.info({ job: JOURNEY_TIMERS, fired }, 'journey timers fired');
    const wait = await nextDueIn(deps, INTERVAL_MS);
    if (wait !== null && wait > 0) setTimeout(() => deps.wakeWorker(JOURNEY_TIMERS), wait).unref();
  },
};
