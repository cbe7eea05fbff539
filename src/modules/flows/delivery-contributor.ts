import type { Executor } from '../../db/client.js';
import type { DeliveryContributor } from '../delivery/index.js';
import { encodeRecord, flowUrlRule, servableOf, TRANSLATION_TYPES } from '../delivery/index.js';
import { liveSnapshots } from '../versions/index.js';
import { type FlowRecord, publishedFlow, toFlowRecord } from './records.js';
import { flowRecord } from './schemas.js';
import { listLiveFlows, loadStepsOf } from './store.js';

/**
 * What the SDK may serve (before audience and URL matching): the tenant's PUBLISHED flows that
 * have not expired at `now`, each as its live version shows it (docs/versions.md: edits to the
 * working copy are not served until published). Three queries whatever the count; a published flow
 * without a live version (none since migration 0090) is served from its working copy.
 */
export async function loadDeliverableFlows(
  exec: Executor,
  tenantId: string,
  now: Date,
): Promise<FlowRecord[]> {
  const rows = await listLiveFlows(exec, tenantId, now);
  const live = await liveSnapshots(
    exec,
    tenantId,
    'flow',
    rows.map((r) => r.id),
  );
  // The working steps too: unversioned flows serve them, versioned ones their learned fingerprints.
  const steps = await loadStepsOf(
    exec,
    tenantId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const version = live.get(r.id);
    const working = steps.get(r.id) ?? [];
    if (!version) return toFlowRecord(r, working);
    return publishedFlow(r, version, new Map(working.map((s) => [s.id, s.targetFingerprint])));
  });
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
