// Tables of versions (migration 0090): the immutable snapshots of flows, content items, journeys
// and audiences, and which version each published item serves.
import { sql } from 'drizzle-orm';
import {
  check,
  customType,
  foreignKey,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { ts } from './columns.js';
import { tenants } from './platform.js';

export const VERSIONED_ITEM_TYPES = ['flow', 'content', 'journey', 'audience'] as const;
export type VersionedItemType = (typeof VERSIONED_ITEM_TYPES)[number];

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

export const itemVersions = pgTable(
  'item_versions',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    itemType: text('item_type').$type<VersionedItemType>().notNull(),
    itemId: uuid('item_id').notNull(),
    version: integer('version').notNull(),
    /** Plain JSON where SQL wrote the snapshot (the migration's backfill). */
    snapshot: jsonb('snapshot').$type<Record<string, unknown>>(),
    /** Brotli-compressed JSON, as the service writes it. */
    snapshotBr: bytea('snapshot_br'),
    note: text('note'),
    publishedBy: uuid('published_by'),
    publishedAt: ts('published_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.itemType, t.itemId, t.version] }),
    check('item_versions_item_type_check', sql`item_type in ('flow', 'content', 'journey', 'audience')`),
    check('item_versions_version_check', sql`version > 0`),
    check('item_versions_check', sql`(snapshot is null) <> (snapshot_br is null)`),
  ],
);

export const liveItemVersions = pgTable(
  'live_item_versions',
  {
    tenantId: uuid('tenant_id').notNull(),
    itemType: text('item_type').$type<VersionedItemType>().notNull(),
    itemId: uuid('item_id').notNull(),
    version: integer('version').notNull(),
    publishedAt: ts('published_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.itemType, t.itemId] }),
    foreignKey({
      columns: [t.tenantId, t.itemType, t.itemId, t.version],
      foreignColumns: [
        itemVersions.tenantId,
        itemVersions.itemType,
        itemVersions.itemId,
        itemVersions.version,
      ],
    }).onDelete('cascade'),
  ],
);
