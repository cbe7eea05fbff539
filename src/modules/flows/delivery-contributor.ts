import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { flows } from '../../db/schema/index.js';
import { liveAt } from '../../platform/schedule.js';
import type { DeliveryContributor } from '../delivery/index.js';
import { encodeRecord, flowUrlRule, servableOf, TRANSLATION_TYPES } from '../delivery/index.js';
import { type FlowRecord, loadStepsOf, toFlowRecord } from './records.js';
import { flowRecord } from './schemas.js';

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

const EPOCH = new Date(0);

/**
 * Flows in the delivery snapshot: every PUBLISHED flow, whatever its expiry (a session judges
 * expiry at its own time), served where its URL_MATCH trigger matches (MANUAL or none: every url).
 */
export const flowDelivery: DeliveryContributor = {
  name: 'flows',
  async load(tx, tenantId) {
    const records = await loadDeliverableFlows(tx, tenantId, EPOCH);
    return {
      items: records.map((f) => ({
        kind: 'flow',
        servable: servableOf({
          id: f.id,
          audienceId: f.audienceId,
          expiresAt: f.expiresAt,
          rule: flowUrlRule(f.trigger),
        }),
        at: (f.publishedAt ?? f.createdAt).getTime(),
        record: encodeRecord(flowRecord, f),
        translationTypes: TRANSLATION_TYPES.flow,
        stepIds: f.steps.map((step) => step.id),
      })),
    };
  },
};
