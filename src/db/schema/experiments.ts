import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { checkOneOf, created, ts, updated } from './columns.js';
import { endUsers } from './events.js';
import { flows } from './flows.js';
import { tenants } from './platform.js';

/** Mirror of migrations/0045_experiments.sql (the delivery-version triggers live only in SQL). */

export const EXPERIMENT_STATUSES = ['draft', 'running', 'stopped', 'completed', 'archived'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];
export const EXPERIMENT_TYPES = ['ab_test'] as const;
export type ExperimentType = (typeof EXPERIMENT_TYPES)[number];

export const experiments = pgTable(
  'experiments',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    type: text('type').$type<ExperimentType>().notNull().default('ab_test'),
    status: text('status').$type<ExperimentStatus>().notNull().default('draft'),
    audienceId: uuid('audience_id'),
    seed: text('seed').notNull(),
    startDate: ts('start_date'),
    endDate: ts('end_date'),
    archivedAt: ts('archived_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('experiments_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('experiments_tenant_status_idx').on(t.tenantId, t.status),
    index('experiments_tenant_audience_idx').on(t.tenantId, t.audienceId).where(sql`audience_id is not null`),
    index('experiments_end_idx')
      .on(t.endDate)
      .where(sql`status in ('running', 'stopped') and end_date is not null`),
    check('experiments_type_check', sql`type in ('ab_test')`),
    checkOneOf('experiments_status_check', 'status', EXPERIMENT_STATUSES),
  ],
);

export const experimentVariants = pgTable(
  'experiment_variants',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    experimentId: uuid('experiment_id')
      .notNull()
      .references(() => experiments.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    /** Hundredths of a percent (one assignment bucket each): 5000 is 50%. */
    splitBasisPoints: integer('split_basis_points').notNull(),
    flowId: uuid('flow_id').references(() => flows.id, { onDelete: 'set null' }),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    unique('experiment_variants_position_key').on(t.experimentId, t.position),
    index('experiment_variants_tenant_flow_idx').on(t.tenantId, t.flowId).where(sql`flow_id is not null`),
    check('experiment_variants_position_check', sql`position >= 0`),
    check('experiment_variants_split_basis_points_check', sql`split_basis_points between 0 and 10000`),
  ],
);

export const experimentAssignments = pgTable(
  'experiment_assignments',
  {
    experimentId: uuid('experiment_id')
      .notNull()
      .references(() => experiments.id, { onDelete: 'cascade' }),
    endUserId: uuid('end_user_id')
      .notNull()
      .references(() => endUsers.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    variantId: uuid('variant_id')
      .notNull()
      .references(() => experimentVariants.id, { onDelete: 'cascade' }),
    assignedAt: ts('assigned_at').notNull(),
    convertedAt: ts('converted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.experimentId, t.endUserId] }),
    index('experiment_assignments_end_user_idx').on(t.endUserId),
    index('experiment_assignments_results_idx').on(
      t.tenantId,
      t.experimentId,
      t.variantId,
      t.assignedAt,
      t.convertedAt,
    ),
  ],
);
