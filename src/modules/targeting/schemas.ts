import { z } from 'zod';
import { targetFingerprint } from '../../engine/fingerprint.js';
import { dataOf, jsonObject, timestamp, uuid } from '../../platform/http/schemas.js';
import { MAX_SELECTOR_LENGTH } from './engine/health.js';

const count = z.number().int().nonnegative();
const counts = { found: count, healed: count, missing: count, ambiguous: count };

export const targetHealth = z
  .object({
    stepId: uuid.nullable().describe('The flow step; null for a tooltip or beacon'),
    order: z.number().int(),
    targetSelector: z.string(),
    ...counts,
    suggestedSelector: z
      .string()
      .nullable()
      .describe(
        "The latest healed lookup's selector for the element it healed to (the picker's rules), when it differs",
      ),
    lastSeenAt: timestamp.nullable(),
    status: z
      .enum(['unknown', 'healthy', 'warning', 'broken'])
      .describe('Over 7 days: no lookups, all found, some healed or failed, mostly failed'),
    lastHour: z.object(counts).describe('The counts of the current and the previous clock hour'),
    broken: z.boolean().describe('Most lookups failed in the last hour (at least 3 lookups)'),
  })
  .meta({ id: 'TargetHealth' });

export const targetHealthList = z.object({ data: z.array(targetHealth) });

export const attentionEntry = targetHealth
  .extend({
    itemKind: z.enum(['flow', 'content']),
    itemId: uuid,
    itemName: z.string(),
    contentType: z.string().nullable(),
    attention: z.enum(['hour', 'week']).describe('Mostly failing in the last hour, or over 7 days'),
  })
  .meta({ id: 'TargetAttention' });

export const attentionList = z.object({ data: z.array(attentionEntry) });

export const applySuggestionBody = z
  .object({
    suggestedSelector: z
      .string()
      .max(MAX_SELECTOR_LENGTH)
      .optional()
      .describe('The suggestion the author saw: 409 VERSION_CONFLICT when it changed since'),
  })
  .describe('Optional: a bodiless POST applies the current suggestion');

export const contentTargetParams = z.object({ type: z.enum(['tooltips', 'beacons']), id: z.string() });
export const stepParams = z.object({ id: z.string(), stepId: z.string() });

export const createPickBody = z.discriminatedUnion('itemKind', [
  z.object({ itemKind: z.literal('flow'), itemId: uuid, stepId: uuid }),
  z.object({ itemKind: z.literal('content'), itemId: uuid }),
]);

export const pickTokenResponse = dataOf(
  z.object({
    id: uuid,
    token: z.string().describe('Shown once: open `<site URL>#guidance-pick=<token>`'),
    expiresAt: timestamp,
    itemKind: z.enum(['flow', 'content']),
    itemId: uuid,
    stepId: uuid.nullable(),
  }),
);

export const pickResponse = dataOf(
  z.object({
    id: uuid,
    status: z.enum(['pending', 'picked', 'expired']),
    itemKind: z.enum(['flow', 'content']),
    itemId: uuid,
    stepId: uuid.nullable(),
    expiresAt: timestamp,
    pickedAt: timestamp.nullable(),
    selector: z.string().nullable(),
    fingerprint: jsonObject.nullable(),
  }),
);

const token = z.string().min(8).max(512);

export const pickVerifyBody = z.object({ token });
export const pickVerifyResponse = dataOf(
  z.object({
    stepId: uuid.nullable(),
    itemKind: z.enum(['flow', 'content']),
    itemId: uuid,
    expiresAt: timestamp,
  }),
);

export const pickResultBody = z.object({
  token,
  selector: z.string().trim().min(1).max(MAX_SELECTOR_LENGTH),
  fingerprint: targetFingerprint,
});
