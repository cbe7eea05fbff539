// Tables of targeting (migration 0070): lookup outcomes per target and hour, reported
// fingerprints, and the element picker's pick tokens. `flow_steps.target_fingerprint` is in flows.ts.
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { checkOneOf, created, ts } from './columns.js';
import { tenants, users } from './platform.js';

export const TARGET_ITEM_KINDS = ['flow', 'content'] as const;
export type TargetItemKind = (typeof TARGET_ITEM_KINDS)[number];

export const targetLookups = pgTable(
  'target_lookups',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    targetId: uuid('target_id').notNull(),
    selector: text('selector').notNull(),
    hour: ts('hour').notNull(),
    itemKind: text('item_kind').$type<TargetItemKind>().notNull(),
    itemId: uuid('item_id').notNull(),
    found: integer('found').notNull().default(0),
    healed: integer('healed').notNull().default(0),
    ambiguous: integer('ambiguous').notNull().default(0),
    missing: integer('missing').notNull().default(0),
    suggestedSelector: text('suggested_selector'),
    lastSeenAt: ts('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.targetId, t.selector, t.hour] }),
    index('target_lookups_tenant_hour_idx').on(t.tenantId, t.hour),
    index('target_lookups_hour_idx').on(t.hour),
    checkOneOf('target_lookups_item_kind_check', 'item_kind', TARGET_ITEM_KINDS),
  ],
);

export const targetFingerprints = pgTable(
  'target_fingerprints',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    targetId: uuid('target_id').notNull(),
    selector: text('selector').notNull(),
    fpKey: text('fp_key').notNull(),
    fingerprint: jsonb('fingerprint').$type<Record<string, unknown>>().notNull(),
    seenCount: integer('seen_count').notNull().default(0),
    picked: boolean('picked').notNull().default(false),
    lastSeenAt: ts('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.targetId, t.selector, t.fpKey] })],
);

export const pickTokens = pgTable(
  'pick_tokens',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    itemKind: text('item_kind').$type<TargetItemKind>().notNull(),
    itemId: uuid('item_id').notNull(),
    stepId: uuid('step_id'),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    selector: text('selector'),
    fingerprint: jsonb('fingerprint').$type<Record<string, unknown>>(),
    createdAt: created(),
  },
  (t) => [
    unique('pick_tokens_token_hash_key').on(t.tokenHash),
    index('pick_tokens_expires_idx').on(t.expiresAt),
    checkOneOf('pick_tokens_item_kind_check', 'item_kind', TARGET_ITEM_KINDS),
  ],
);
