import type { Executor } from '../../db/client.js';
import type { DeliveryContributor } from '../delivery/index.js';
import { encodeRecord, flowUrlRule, servableOf, TRANSLATION_TYPES } from '../delivery/index.js';
import { type FlowRecord, toFlowRecord } from './records.js';
import { flowRecord } from './schemas.js';
import { listLiveFlows, loadStepsOf } from './store.js';

/**
 * What the SDK may serve (before audience and URL matching): the tenant's PUBLISHED flows that
 * have not expired at `now`, each with its ordered steps. Two queries whatever the count.
 */
export async function loadDeliverableFlows(
  exec: Executor,
  tenantId: string,
  now: Date,
): Promise<FlowRecord[]> {
  const rows = await listLiveFlows(exec, tenantId, now);
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
