import type { Executor } from '../../db/client.js';
import { isUuid } from '../../platform/ids.js';
import type { EndUserMerger } from '../end-users/index.js';
import type { EventEffect, ProcessedBatch } from '../events/index.js';
import { type ConversionRow, markConversions, moveAssignments as moveAssignmentRows } from './store.js';

/**
 * EXPERIMENT_CONVERSION events (DECISIONS §6): `properties.experimentId` names the experiment;
 * the variant is the end user's assignment, and a `properties.variantId` that disagrees with it
 * makes the event count for nothing. A user converts once: the first agreeing event sets the
 * assignment's `converted_at` and later ones find it set. A user with no assignment (never
 * exposed, or outside the audience) converts nothing. The end user is the session's
 * (`end_user_of` of userId / anonymousId).
 *
 * Set-based: one UPDATE for the whole chunk, its rows in key order (concurrent processors lock
 * shared rows in the same order). `converted_at` is the event's time, never before the
 * assignment (a client clock behind the server's would otherwise put a conversion before
 * exposure in the daily series). Events that do not count are simply not counted: no dead
 * letter (converting without being in an experiment is normal).
 */
async function applyConversions(tx: Executor, batches: ProcessedBatch[]): Promise<void> {
  const rows: ConversionRow[] = [];
  for (const batch of batches) {
    for (const event of batch.events) {
      if (event.type !== 'EXPERIMENT_CONVERSION') continue;
      const experimentId = event.properties?.experimentId;
      const variantId = event.properties?.variantId;
      if (typeof experimentId !== 'string' || !isUuid(experimentId)) continue;
      if (!event.userId && !event.anonymousId) continue;
      // A variantId that is present but not even an id can agree with nothing.
      if (
        variantId !== undefined &&
        variantId !== null &&
        (typeof variantId !== 'string' || !isUuid(variantId))
      )
        continue;
      rows.push({
        tenantId: batch.tenantId,
        experimentId: experimentId.toLowerCase(),
        ext: event.userId || null,
        anon: event.userId ? null : event.anonymousId || null,
        variantId: typeof variantId === 'string' ? variantId.toLowerCase() : null,
        at: event.timestamp,
      });
    }
  }
  await markConversions(tx, rows);
}

export const experimentConversionsEffect: EventEffect = {
  name: 'experiment-conversions',
  // The end users it resolves may be created by the activity effect in the same chunk.
  runsAfter: ['end-user-activity'],
  apply: (tx, batches) => applyConversions(tx, batches),
};

/** Identify merged an anonymous end user into `toId`: its assignments move, the identified user's own winning. */
export const moveAssignments: EndUserMerger = (tx, { tenantId, fromId, toId }) =>
  moveAssignmentRows(tx, tenantId, fromId, toId);
