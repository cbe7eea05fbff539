import type { ModuleManifest } from '../../deps.js';
import { webhookDeliveriesJob } from './delivery-job.js';
import { webhookEventsEffect } from './events-effect.js';
import { webhookRoutes } from './routes.js';
import { createWebhooksState } from './state.js';

/**
 * Outgoing webhooks (docs/webhooks.md): `/api/webhooks` (endpoints, secrets, the delivery log,
 * replay, test events), the outbox other modules write to in their own transactions
 * (`emitWebhookEvents`), the events effect for flow.completed / flow.dismissed, and the delivery
 * job (leases, Standard Webhooks signatures, backoff, SSRF checks at every attempt).
 */
export const webhooksModule: ModuleManifest = {
  name: 'webhooks',
  routes: webhookRoutes,
  tags: [{ name: 'webhooks', description: 'Signed outgoing webhooks and their delivery log' }],
  effects: [webhookEventsEffect],
  jobs: [webhookDeliveriesJob],
  state: { webhooks: createWebhooksState },
};

// The surface other modules use.
export type { WebhookEventType } from './engine/event-types.js';
export { WEBHOOK_EVENT_TYPES } from './engine/event-types.js';
export { emitWebhookEvents, subscribedTenants, type WebhookEvent } from './outbox.js';
