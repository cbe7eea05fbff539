import { sql } from 'drizzle-orm';
import {
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

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
  (t) => [
    uniqueIndex('end_users_tenant_external_key')
      .on(t.tenantId, t.externalId)
      .where(sql`external_id is not null`),
    uniqueIndex('end_users_tenant_anonymous_key')
      .on(t.tenantId, t.anonymousId)
      .where(sql`anonymous_id is not null and external_id is null`),
    index('end_users_tenant_last_seen_idx').on(t.tenantId, t.lastSeenAt),
    // Exports read end users in stored order (migration 0094).
    index('end_users_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('end_users_tenant_anonymous_any_idx')
      .on(t.tenantId, t.anonymousId)
      .where(sql`anonymous_id is not null`),
  ],
);

/**
 * One row per accepted SDK request (migration 0008); `events` is its body as received (see
 * decodeBatchEvents). On PostgreSQL partitioned by the month of `received_at` (migration 0096,
 * docs/retention.md), hence the key (id, received_at).
 */
export const eventBatches = pgTable(
  'event_batches',
  {
    id: uuid('id').notNull(),
    tenantId: uuid('tenant_id').notNull(),
    correlationId: uuid('correlation_id').notNull(),
    apiKeyId: uuid('api_key_id'),
    receivedAt: ts('received_at').notNull(),
    eventCount: integer('event_count').notNull(),
    /** The body as text (PostgreSQL), or brotli-compressed in `eventsBr` (PGlite; migration 0065). */
    events: text('events'),
    eventsBr: bytea('events_br'),
    source: text('source').$type<'sdk' | 'server'>().notNull().default('sdk'),
    processedAt: ts('processed_at'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.receivedAt] }),
    index('event_batches_tenant_received_idx').on(t.tenantId, t.receivedAt),
    // The processor's claims: new batches, and failed ones retried alone.
    index('event_batches_new_idx').on(t.id).where(sql`processed_at is null and attempts = 0`),
    index('event_batches_retry_idx').on(t.id).where(sql`processed_at is null and attempts > 0`),
    check('event_batches_source_check', sql`source in ('sdk', 'server')`),
    check('event_batches_body_check', sql`(events is null) <> (events_br is null)`),
  ],
);

export const processedEventIds = pgTable(
  'processed_event_ids',
  {
    tenantId: uuid('tenant_id').notNull(),
    eventId: uuid('event_id').notNull(),
    processedAt: ts('processed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.eventId] })],
);

export const eventDeadLetters = pgTable(
  'event_dead_letters',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    batchId: uuid('batch_id').notNull(),
    correlationId: uuid('correlation_id').notNull(),
    event: jsonb('event').$type<Record<string, unknown>>().notNull(),
    reason: text('reason').notNull(),
    createdAt: created(),
  },
  (t) => [index('event_dead_letters_tenant_idx').on(t.tenantId, t.createdAt)],
);
