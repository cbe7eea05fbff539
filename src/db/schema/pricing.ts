import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { checkOneOf, created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

// Tables of the pricing domain (migration 0006_pricing.sql). Plans are seeded data.

export const plans = pgTable(
  'plans',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    priceMonthly: numeric('price_monthly', { precision: 10, scale: 2, mode: 'number' }).notNull().default(0),
    priceYearly: numeric('price_yearly', { precision: 10, scale: 2, mode: 'number' }).notNull().default(0),
    /** Feature key → included. */
    features: jsonb('features').$type<Record<string, boolean>>().notNull().default({}),
    /** Limit key → maximum, null = unlimited. */
    limits: jsonb('limits').$type<Record<string, number | null>>().notNull().default({}),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('plans_name_key').on(t.name)],
);

export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** One per tenant. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    tenantId: uuid('tenant_id')
      .primaryKey()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    planId: uuid('plan_id')
      .notNull()
      .references(() => plans.id),
    status: text('status').$type<SubscriptionStatus>().notNull().default('active'),
    currentPeriodStart: ts('current_period_start').notNull(),
    currentPeriodEnd: ts('current_period_end').notNull(),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('subscriptions_plan_idx').on(t.planId),
    checkOneOf('subscriptions_status_check', 'status', SUBSCRIPTION_STATUSES),
  ],
);

/** Tokens spent on AI provider calls, written by the AI module; summed over the current period. */
export const aiTokenUsage = pgTable(
  'ai_token_usage',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    tokens: integer('tokens').notNull(),
    createdAt: created(),
  },
  (t) => [
    index('ai_token_usage_tenant_created_idx').on(t.tenantId, t.createdAt),
    check('ai_token_usage_tokens_check', sql`tokens >= 0`),
  ],
);
