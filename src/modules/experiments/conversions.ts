import type { Executor } from '../../db/client.js';
import { rawQuery } from '../../db/raw.js';
import { isUuid } from '../../platform/ids.js';
import type { EventEffect, ProcessedBatch } from '../events/index.js';

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
  const rows: {
    tenantId: string;
    experimentId: string;
    ext: string | null;
    anon: string | null;
    variantId: string | null;
    at: string;
  }[] = [];
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
  if (rows.length === 0) return;
  await rawQuery(
    tx,
    `update experiment_assignments a set converted_at = greatest(c.at, a.assigned_at)
     from (
       select a2.experiment_id, a2.end_user_id, min(x.at) as at
       from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::timestamptz[])
         as x (tenant_id, experiment_id, ext, anon, variant_id, at)
       cross join lateral end_user_of(x.tenant_id, x.ext, x.anon) u
       join experiment_assignments a2
         on a2.experiment_id = x.experiment_id and a2.end_user_id = u.id and a2.tenant_id = x.tenant_id
       where a2.converted_at is null and (x.variant_id is null or x.variant_id = a2.variant_id)
       group by a2.experiment_id, a2.end_user_id
       order by a2.experiment_id, a2.end_user_id
     ) c
     where a.experiment_id = c.experiment_id and a.end_user_id = c.end_user_id and a.converted_at is null`,
    [
      rows.map((r) => r.tenantId),
      rows.map((r) => r.experimentId),
      rows.map((r) => r.ext),
      rows.map((r) => r.anon),
      rows.map((r) => r.variantId),
      rows.map((r) => r.at),
    ],
  );
}

export const experimentConversionsEffect: EventEffect = {
  name: 'experiment-conversions',
  // The end users it resolves may be created by the activity effect in the same chunk.
  runsAfter: ['end-user-activity'],
  apply: (tx, batches) => applyConversions(tx, batches),
};

/** Identify merged an anonymous end user into `toId`: its assignments move, the identified user's own winning. */
export async function moveAssignments(
  tx: Executor,
  { tenantId, fromId, toId }: { tenantId: string; fromId: string; toId: string },
): Promise<void> {
  await rawQuery(
    tx,
    `insert into experiment_assignments (experiment_id, end_user_id, tenant_id, variant_id, assigned_at, converted_at)
     select experiment_id, $3, tenant_id, variant_id, assigned_at, converted_at
     from experiment_assignments where tenant_id = $1 and end_user_id = $2
     order by experiment_id
     on conflict do nothing`,
    [tenantId, fromId, toId],
  );
  await rawQuery(tx, 'delete from experiment_assignments where tenant_id = $1 and end_user_id = $2', [
    tenantId,
    fromId,
  ]);
}
