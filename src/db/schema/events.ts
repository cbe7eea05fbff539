import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

/** End users of a tenant's app (migration 0007). */
export const endUsers = pgTable(
  'end_users',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    externalId: text('external_id'),
    anonymousId: text('anonymous_id'),
    traits: jsonb('traits').$type<Record<string, unknown>>().notNull().default({}),
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [index('end_users_tenant_last_seen_idx').on(t.tenantId, t.lastSeenAt)],
);
