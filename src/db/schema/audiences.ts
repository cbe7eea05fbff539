import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import type { RuleNode } from '../../engine/rules.js';
import { created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

export const audiences = pgTable(
  'audiences',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    // Every stored tree passed `ruleTreeSchema` on save.
    ruleTree: jsonb('rule_tree').$type<RuleNode>().notNull(),
    createdAt: created(),
    updatedAt: updated(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('audiences_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
  ],
);
