import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { checkOneOf, created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

export const FLOW_STATUSES = ['DRAFT', 'PUBLISHED', 'SCHEDULED', 'ARCHIVED'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

export const flows = pgTable(
  'flows',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    siteId: uuid('site_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    template: text('template').notNull(),
    status: text('status').$type<FlowStatus>().notNull().default('DRAFT'),
    audienceId: uuid('audience_id'),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    priority: integer('priority').notNull().default(0),
    bypassCaps: boolean('bypass_caps').notNull().default(false),
    trigger: jsonb('trigger').$type<{ type: string; config?: Record<string, unknown> } | null>(),
    scheduledAt: ts('scheduled_at'),
    expiresAt: ts('expires_at'),
    publishedAt: ts('published_at'),
    archivedAt: ts('archived_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('flows_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('flows_tenant_status_idx').on(t.tenantId, t.status),
    index('flows_tenant_audience_idx').on(t.tenantId, t.audienceId).where(sql`audience_id is not null`),
    index('flows_due_idx').on(t.scheduledAt).where(sql`status = 'SCHEDULED'`),
    index('flows_expiry_idx')
      .on(t.expiresAt)
      .where(sql`status in ('PUBLISHED', 'SCHEDULED') and expires_at is not null`),
    checkOneOf('flows_status_check', 'status', FLOW_STATUSES),
  ],
);

export const flowSteps = pgTable(
  'flow_steps',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    flowId: uuid('flow_id')
      .notNull()
      .references(() => flows.id, { onDelete: 'cascade' }),
    order: integer('order').notNull(),
    type: text('type').notNull(),
    targetSelector: text('target_selector'),
    /** The fingerprint served with the step (issue 40; migration 0070): see modules/targeting. */
    targetFingerprint: jsonb('target_fingerprint').$type<Record<string, unknown> | null>(),
    content: jsonb('content').$type<Record<string, unknown>>().notNull().default({}),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    // DEFERRABLE INITIALLY DEFERRED in SQL (reorders swap orders within a transaction); drizzle
    // cannot say so: the one difference the drift test allows (test/schema-drift.test.ts).
    unique('flow_steps_flow_order_key').on(t.flowId, t.order),
    index('flow_steps_tenant_flow_idx').on(t.tenantId, t.flowId),
    check('flow_steps_order_check', sql`"order" >= 0`),
  ],
);
