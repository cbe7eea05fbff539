import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { flows } from '../../db/schema/index.js';
import { liveAt } from '../../platform/schedule.js';
import { type FlowRecord, loadStepsOf, toFlowRecord } from './records.js';

/**
 * What the SDK may serve (before audience and URL matching): the tenant's PUBLISHED flows that
 * have not expired at `now`, each with its ordered steps. Two queries whatever the count.
 */
export async function loadDeliverableFlows(
  exec: Executor,
  tenantId: string,
  now: Date,
): Promise<FlowRecord[]> {
  const rows = await exec
    .select()
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), liveAt(flows, now)))
    .orderBy(desc(flows.createdAt), desc(flows.id));
  const steps = await loadStepsOf(
    exec,
    tenantId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toFlowRecord(r, steps.get(r.id) ?? []));
}
