import type { EventEffect, StoredEvent } from '../events/index.js';
import type { WebhookEventType } from './engine/event-types.js';
import { emitWebhookEvents, type WebhookEvent } from './outbox.js';

/** SDK events that are webhook events as they are. */
const FROM_SDK: Partial<Record<StoredEvent['type'], WebhookEventType>> = {
  FLOW_COMPLETED: 'flow.completed',
  FLOW_DISMISSED: 'flow.dismissed',
};

const text = (v: unknown) => (typeof v === 'string' ? v : null);

/** The `data` of a flow event's webhook: which flow, which end user, when. */
export function flowEventData(e: StoredEvent): Record<string, unknown> {
  return {
    eventId: e.id,
    flowId: text(e.properties?.flowId),
    userId: e.userId ?? null,
    anonymousId: e.anonymousId ?? null,
    sessionId: e.sessionId ?? null,
    url: e.url ?? null,
    occurredAt: e.timestamp,
    properties: e.properties ?? {},
  };
}

/**
 * `flow.completed` and `flow.dismissed` from processed events, into the outbox in the chunk's
 * transaction. A chunk without such events costs nothing; one whose tenants subscribe to none of
 * them costs no query either (the cached subscriptions).
 */
export const webhookEventsEffect: EventEffect = {
  name: 'webhooks',
  async apply(tx, batches, ctx) {
    const out: WebhookEvent[] = [];
    for (const batch of batches) {
      for (const e of batch.events) {
        const type = FROM_SDK[e.type];
        if (type)
          out.push({
            tenantId: batch.tenantId,
            type,
            data: flowEventData(e),
            timestamp: new Date(e.timestamp),
          });
      }
    }
    if (out.length > 0) await emitWebhookEvents(tx, out, { now: new Date(), effects: ctx });
  },
};
