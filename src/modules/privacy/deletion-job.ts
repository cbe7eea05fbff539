import type { AppDeps, Job } from '../../deps.js';
import { eraseEventsOf } from '../events/index.js';
import { emitWebhookEvents } from '../webhooks/index.js';
import {
  type ClaimedDeletion,
  claimDueDeletion,
  eraseEndUserRows,
  findEndUsersOf,
  finishDeletion,
} from './store.js';

/**
 * The deletion job: claims a due request with a lease (the attempt counted at the claim), then
 * erases the end user in one transaction that also completes the request and writes the
 * `end_user.deleted` webhook message, but only while the claim is still its own. A worker killed
 * mid-job leaves its transaction uncommitted and the request `running` with a lease; when the
 * lease runs out another run claims it and starts again from nothing. Erasing twice is harmless
 * (the second finds nothing), and the message is written once: with the commit that completes.
 * A run that fails is retried at the next claim; after MAX_ATTEMPTS the request fails.
 */

export type DeletionDeps = Pick<AppDeps, 'database' | 'clock' | 'log' | 'state'>;

export const PRIVACY_DELETIONS = 'privacy-deletions';
/** How long a claim is held: longer than any erasure should take (a large event log included). */
export const LEASE_MS = 10 * 60_000;
export const MAX_ATTEMPTS = 5;
const INTERVAL_MS = 2_000;

class LostClaim extends Error {}

/** The erasure of one claimed request, committed with its completion. */
async function erase(deps: DeletionDeps, c: ClaimedDeletion): Promise<void> {
  return deps.database.db.transaction(async (tx) => {
    const who = await findEndUsersOf(tx, c.tenantId, c.userId);
    const removed = await eraseEndUserRows(tx, c.tenantId, { userId: c.userId, ...who });
    const log = await eraseEventsOf(tx, c.tenantId, { userId: c.userId, anonymousIds: who.anonymousIds });
    removed.event_batches = log.batches;
    removed.events = log.events;
    removed.event_dead_letters = log.deadLetters;
    const now = new Date(deps.clock());
    const finished = await finishDeletion(tx, c, { status: 'completed', removed, lastError: null, now });
    // Another run took the request over (this one outlived its lease): undo, it completes there.
    if (!finished) throw new LostClaim();
    await emitWebhookEvents(
      tx,
      [{ tenantId: c.tenantId, type: 'end_user.deleted', data: { userId: c.userId, deletionId: c.id } }],
      { now },
    );
  });
}

/** Runs due requests one after another; returns how many were claimed. */
export async function runDueDeletions(deps: DeletionDeps): Promise<number> {
  let claimed = 0;
  for (;;) {
    const now = deps.clock();
    const c = await claimDueDeletion(deps.database.db, new Date(now), new Date(now + LEASE_MS));
    if (!c) return claimed;
    claimed++;
    try {
      await erase(deps, c);
    } catch (err) {
      if (err instanceof LostClaim) continue;
      deps.log.error({ err, deletionId: c.id }, 'end-user deletion failed');
      const failed = c.attempts >= MAX_ATTEMPTS;
      await finishDeletion(deps.database.db, c, {
        // A run left to be retried goes back to pending (claimable at once by the next run).
        status: failed ? 'failed' : 'pending',
        lastError: err instanceof Error ? err.message : String(err),
        now: new Date(deps.clock()),
      });
      if (!failed) return claimed;
    }
  }
}

export const privacyDeletionsJob: Job = {
  name: PRIVACY_DELETIONS,
  intervalMs: INTERVAL_MS,
  async run(deps) {
    const n = await runDueDeletions(deps);
    if (n > 0) deps.log.debug({ job: PRIVACY_DELETIONS, claimed: n }, 'end-user deletions run');
  },
};
