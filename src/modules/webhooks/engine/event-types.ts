/**
 * The event types a webhook may subscribe to (docs/webhooks.md lists their payloads).
 * `end_user.deleted` is emitted by modules/privacy, `target.broken` by targeting's lookups effect.
 * `webhook.test` is only sent by "send test event", never subscribed.
 */
export const WEBHOOK_EVENT_TYPES = [
  'flow.published',
  'flow.completed',
  'flow.dismissed',
  'survey.responded',
  'journey.enrolled',
  'journey.exited',
  'experiment.completed',
  'end_user.deleted',
  'target.broken',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = 'webhook.test';
