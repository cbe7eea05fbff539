import { bigint, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';
import { endUsers } from './events.js';
import { tenants } from './platform.js';

/** Mirror of migrations/0014_sdk.sql (the triggers that bump the version live only in SQL). */

/** Bumped at commit by every transaction that changes what the SDK serves a tenant. */
export const tenantDeliveryVersions = pgTable('tenant_delivery_versions', {
  tenantId: uuid('tenant_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** Per end user and item (flow, content item, NPS survey): completed / dismissed, for the frequency cap. */
export const endUserItemStates = pgTable(
  'end_user_item_states',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    endUserId: uuid('end_user_id')
      .notNull()
      .references(() => endUsers.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id').notNull(),
    completedAt: ts('completed_at'),
    dismissedAt: ts('dismissed_at'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.endUserId, t.itemId] }),
    index('end_user_item_states_end_user_idx').on(t.endUserId),
  ],
);

/** Mirror of migrations/0076_delivery_policy.sql: the tenant's delivery policy (caps, cooldown, afterDismissDays). */
export const tenantDeliveryPolicies = pgTable('tenant_delivery_policies', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  policy: jsonb('policy').$type<Record<string, unknown>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** The serve ledger: per end user and item, its first and last auto-start serve (or reported exposure). */
export const endUserServes = pgTable(
  'end_user_serves',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    endUserId: uuid('end_user_id')
      .notNull()
      .references(() => endUsers.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id').notNull(),
    scopes: text('scopes').array().notNull(),
    firstAt: ts('first_at').notNull(),
    lastAt: ts('last_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.endUserId, t.itemId] }),
    index('end_user_serves_end_user_idx').on(t.endUserId),
  ],
);
