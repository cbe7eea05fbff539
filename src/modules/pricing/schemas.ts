import { z } from 'zod';
import { dataOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { CHECKABLE_KEYS, PLAN_FEATURE_KEYS, PLAN_LIMIT_KEYS } from './keys.js';

const features = z
  .object(
    Object.fromEntries(PLAN_FEATURE_KEYS.map((k) => [k, z.boolean()])) as Record<
      (typeof PLAN_FEATURE_KEYS)[number],
      z.ZodBoolean
    >,
  )
  .describe('Feature key → included in the plan');

const limitValue = z.number().int().nullable();
const limits = z
  .object(
    Object.fromEntries(PLAN_LIMIT_KEYS.map((k) => [k, limitValue])) as Record<
      (typeof PLAN_LIMIT_KEYS)[number],
      typeof limitValue
    >,
  )
  .describe('Limit key → maximum; null = unlimited. activeUsers and aiTokens are per billing period');

export const plan = z.object({
  id: uuid,
  name: z.string(),
  priceMonthly: z.number(),
  priceYearly: z.number(),
  features,
  limits,
  retentionDays: z
    .number()
    .int()
    .nullable()
    .describe("Days a tenant's events are kept before the retention job removes them; null = kept forever"),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const planList = z.object({ data: z.array(plan) });

const subscriptionFields = {
  plan: z.string().describe('Plan name'),
  status: z.string(),
  currentPeriodStart: timestamp,
  currentPeriodEnd: timestamp,
  isFreePlan: z.boolean(),
};
export const subscriptionResponse = dataOf(z.object(subscriptionFields));
export const adminSubscriptionResponse = dataOf(z.object({ tenantId: uuid, ...subscriptionFields }));

export const checkFeatureBody = z.object({
  feature: z
    .string()
    .min(1)
    .max(100)
    .describe(
      `A feature key or a limit key: ${CHECKABLE_KEYS.join(', ')}. Any other name answers allowed false with reason 'Unknown feature "<name>"'`,
    ),
});

export const checkFeatureResponse = dataOf(
  z.object({
    allowed: z.boolean(),
    feature: z.string(),
    plan: z.string(),
    reason: z.string().nullable(),
    usage: z.object({ used: z.number().int(), limit: z.number().int().nullable() }).nullable(),
  }),
);

export const usageResponse = dataOf(
  z.object({
    plan: z.string(),
    usage: z.array(
      z.object({
        feature: z.enum(PLAN_LIMIT_KEYS),
        used: z.number().int(),
        limit: z.number().int().nullable(),
        unlimited: z.boolean(),
        enabled: z.boolean().describe('false when the plan lacks the feature this limit belongs to'),
        percentage: z.number().describe('used / limit × 100, one decimal; 0 when unlimited'),
      }),
    ),
  }),
);

export const changeSubscriptionBody = z.object({
  plan: z.string().trim().min(1).describe('Plan name, e.g. growth'),
});
