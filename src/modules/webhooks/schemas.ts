import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES } from '../../db/schema/index.js';
import { dataOf, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { WEBHOOK_EVENT_TYPES } from './engine/event-types.js';
import { MAX_URL_LENGTH } from './engine/url.js';

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .describe('The event types this endpoint receives');

const url = z
  .string()
  .trim()
  .min(1)
  .max(MAX_URL_LENGTH)
  .describe('https only; hosts resolving to private, loopback, link-local or metadata addresses are refused');

export const createWebhookBody = z.object({
  url,
  events: eventTypes,
  description: z.string().trim().max(500).default(''),
  enabled: z.boolean().default(true),
});
export type CreateWebhookInput = z.infer<typeof createWebhookBody>;

export const updateWebhookBody = z.object({
  url: url.optional(),
  events: eventTypes.optional(),
  description: z.string().trim().max(500).optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;

const webhook = z
  .object({
    id: uuid,
    tenantId: uuid,
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z
      .string()
      .nullable()
      .describe('Why the service disabled it (410 Gone, failing for 3 days)'),
    previousSecretExpiresAt: timestamp
      .nullable()
      .describe('After a rotation: until when the previous secret also signs deliveries'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Webhook' });

export const webhookResponse = dataOf(webhook);
export const webhookList = listOf(webhook);
export const createdWebhook = z.object({
  data: webhook.extend({
    secret: z.string().describe('The signing secret (whsec_…); shown only in this response'),
  }),
  warning: z.string(),
});
export const rotatedSecret = z.object({
  data: z.object({
    secret: z.string().describe('The new signing secret; shown only in this response'),
    previousSecretExpiresAt: timestamp.describe('Until then the previous secret signs deliveries too'),
  }),
});

export const listWebhooksQuery = paginationQuery();
export const listDeliveriesQuery = paginationQuery().extend({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
});
export const deliveryParams = z.object({ id: z.string(), did: z.string() });

const delivery = z
  .object({
    id: uuid,
    webhookId: uuid,
    messageId: z.string().describe('The webhook-id header: the same on every attempt'),
    eventType: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: timestamp.describe('When a pending delivery is tried next'),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable().describe('The first 1 kB of the last answer'),
    latencyMs: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryResponse = dataOf(delivery);
export const deliveryList = listOf(delivery);
