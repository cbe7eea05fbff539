import type { ContentRecord, Flow, JourneyDelivery, SessionResponse } from './wire.js';

/**
 * What a session payload asks the SDK to show, worked out without touching the DOM (pure, unit
 * tested). Every item carries a `context`: properties added to each event it sends, so the
 * service can attribute them:
 *   - experiments `{ experimentId, variantId, flowId }` → that flow's events carry
 *     `experimentId` and `variantId` (a variant without a flow, the control, shows nothing);
 *   - journeys `{ journeyId, enrollmentId, nodeId, contentType, contentId }` → the referenced
 *     flow or content record (found in the same payload) is shown now, whatever its own
 *     trigger, and its events carry `journeyId`, `enrollmentId` and `nodeId`.
 */

export type Context = Record<string, string>;

export interface PlannedFlow {
  flow: Flow;
  /** Starts by itself: a URL_MATCH trigger (the service already matched the url), no trigger, or a journey step. MANUAL flows wait for startFlow(). */
  auto: boolean;
  context: Context;
}

export interface PlannedContent {
  record: ContentRecord;
  /** A journey step: shown now, not when its own trigger (time on page, exit intent...) fires. */
  immediate: boolean;
  context: Context;
}

export interface Plan {
  /** Journey steps first, then the service's priority order. */
  flows: PlannedFlow[];
  content: PlannedContent[];
  /** Journey entries whose flow or content is not in the payload (reported, not shown). */
  missing: JourneyDelivery[];
  /** Variant per experiment, for EXPERIMENT_CONVERSION events. */
  variants: Record<string, string>;
}

const isFlowType = (contentType: string) => /^flows?$/i.test(contentType.trim());

export function planSession(data: SessionResponse['data']): Plan {
  const flowIds = new Set(data.flows.map((f) => f.id));
  const contentIds = new Set(data.content.map((c) => c.id));

  const experimentOf = new Map<string, Context>();
  const variants: Record<string, string> = {};
  for (const e of data.experiments) {
    variants[e.experimentId] = e.variantId;
    if (e.flowId) experimentOf.set(e.flowId, { experimentId: e.experimentId, variantId: e.variantId });
  }

  const journeyOf = new Map<string, Context>();
  const missing: JourneyDelivery[] = [];
  for (const j of data.journeys) {
    // The contentType says where to look first; an id found in the other list still counts.
    const found = isFlowType(j.contentType)
      ? flowIds.has(j.contentId) || contentIds.has(j.contentId)
      : contentIds.has(j.contentId) || flowIds.has(j.contentId);
    if (!found) {
      missing.push(j);
      continue;
    }
    if (!journeyOf.has(j.contentId)) {
      journeyOf.set(j.contentId, { journeyId: j.journeyId, enrollmentId: j.enrollmentId, nodeId: j.nodeId });
    }
  }

  const flows = data.flows.map((flow) => {
    const journey = journeyOf.get(flow.id);
    return {
      flow,
      auto: journey !== undefined || flow.trigger?.type !== 'MANUAL',
      context: { ...experimentOf.get(flow.id), ...journey },
    };
  });
  // Stable: journey steps first, the rest in the service's order.
  flows.sort((a, b) => Number(journeyOf.has(b.flow.id)) - Number(journeyOf.has(a.flow.id)));

  const content = data.content.map((record) => {
    const journey = journeyOf.get(record.id);
    return { record, immediate: journey !== undefined, context: { ...journey } };
  });
  content.sort((a, b) => Number(b.immediate) - Number(a.immediate));

  return { flows, content, missing, variants };
}
