import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { checkOneOf, created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

export const PRIVACY_DELETION_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type PrivacyDeletionStatus = (typeof PRIVACY_DELETION_STATUSES)[number];

/** Mirror of migrations/0095_privacy.sql: end-user deletion requests, each a durable job. */
export const privacyDeletions = pgTable(
  'privacy_deletions',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    externalUserId: text('external_user_id').notNull(),
    status: text('status').$type<PrivacyDeletionStatus>().notNull().default('pending'),
    requestedBy: uuid('requested_by'),
    attempts: integer('attempts').notNull().default(0),
    leaseUntil: ts('lease_until'),
    /** Rows removed per table, once completed. */
    removed: jsonb('removed').$type<Record<string, number>>().notNull().default({}),
    lastError: text('last_error'),
    completedAt: ts('completed_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('privacy_deletions_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('privacy_deletions_due_idx').on(t.createdAt).where(sql`status in ('pending', 'running')`),
    checkOneOf('privacy_deletions_status_check', 'status', PRIVACY_DELETION_STATUSES),
  ],
);
