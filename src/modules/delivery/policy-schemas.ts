import { z } from 'zod';
import { CONTENT_TYPES } from '../../db/schema/index.js';
import { dataOf, timestamp } from '../../platform/http/schemas.js';
import {
  ALL_SCOPE,
  CAP_PERIODS,
  DEFAULT_POLICY,
  type DeliveryPolicy,
  FLOWS_SCOPE,
  MODAL_LIKE_SCOPE,
} from './engine/policy.js';

/** Every cap scope: all, flows, each content type, NPS surveys, and modal-like presentations. */
export const CAP_SCOPES = [
  ALL_SCOPE,
  FLOWS_SCOPE,
  ...CONTENT_TYPES,
  'nps-surveys',
  MODAL_LIKE_SCOPE,
] as const;

export const MAX_CAPS = 20;

const cap = z.object({
  scope: z
    .enum(CAP_SCOPES)
    .describe('all, flows, a content type (announcements, surveys, …, nps-surveys) or modal-like'),
  max: z.number().int().min(1).max(1000).describe('at most this many distinct items in the window (≥ 1)'),
  per: z.enum(CAP_PERIODS).describe('session (this session), or a rolling hour, day or week'),
});

/** `PUT /api/delivery-policy`: the whole policy (omitted fields take their defaults). */
export const deliveryPolicyBody = z.object({
  caps: z.array(cap).max(MAX_CAPS).default([]),
  cooldownSeconds: z
    .number()
    .int()
    .min(0)
    .max(365 * 86_400)
    .default(0)
    .describe('seconds between two auto-started items for one user (0: none)'),
  afterDismissDays: z
    .number()
    .int()
    .min(0)
    .max(3650)
    .nullable()
    .default(null)
    .describe("days a dismissed item stays away; null: the tenant's frequency settings decide"),
});

export const deliveryPolicyRecord = z
  .object({
    caps: z.array(z.object({ scope: z.string(), max: z.number().int(), per: z.enum(CAP_PERIODS) })),
    cooldownSeconds: z.number().int(),
    afterDismissDays: z.number().int().nullable(),
    updatedAt: timestamp.nullable().describe('null while the tenant has the defaults'),
  })
  .meta({ id: 'DeliveryPolicy' });

export const deliveryPolicyResponse = dataOf(deliveryPolicyRecord);

/** The stored policy as delivery reads it: anything unreadable is the default (holds nothing back). */
export function policyOf(stored: unknown): DeliveryPolicy {
  if (stored === null || stored === undefined) return DEFAULT_POLICY;
  const parsed = deliveryPolicyBody.safeParse(stored);
  return parsed.success ? parsed.data : DEFAULT_POLICY;
}
