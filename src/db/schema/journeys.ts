// Tables of the journeys domain (migration 0055): the canvas and the durable enrollment engine.
// The delivery-version triggers live only in SQL.
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { ENROLLMENT_STATUSES, type EnrollmentStatus } from '../../modules/journeys/engine/machine.js';
import { checkOneOf, created, ts, updated } from './columns.js';
import { endUsers } from './events.js';
import { tenants } from './platform.js';

export const JOURNEY_STATUSES = ['DRAFT', 'PUBLISHED', 'PAUSED', 'ARCHIVED'] as const;
export type JourneyStatus = (typeof JOURNEY_STATUSES)[number];

const tenantRef = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' });

export const journeys = pgTable(
  'journeys',
  {
    id: uuid('id').primaryKey(),
    tenantId: tenantRef(),
    siteId: uuid('site_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status').$type<JourneyStatus>().notNull().default('DRAFT'),
    audienceId: uuid('audience_id'),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    goalConfig: jsonb('goal_config').$type<Record<string, unknown> | null>(),
    allowAnonymous: boolean('allow_anonymous').notNull().default(false),
    // The live version's TRIGGER type (null before the first publish), migration 0098.
    triggerType: text('trigger_type'),
    canvasVersion: integer('canvas_version').notNull().default(1),
    // Mirrors the journey's live_item_versions row (migration 0098): the version the engine runs.
    liveVersion: integer('live_version'),
    publishedAt: ts('published_at'),
    archivedAt: ts('archived_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('journeys_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('journeys_tenant_status_idx').on(t.tenantId, t.status),
    index('journeys_tenant_audience_idx').on(t.tenantId, t.audienceId).where(sql`audience_id is not null`),
    checkOneOf('journeys_status_check', 'status', JOURNEY_STATUSES),
  ],
);

export const journeyNodes = pgTable(
  'journey_nodes',
  {
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    tenantId: tenantRef(),
    ord: integer('ord').notNull(),
    type: text('type').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    contentId: uuid('content_id'),
    position: jsonb('position').$type<{ x: number; y: number }>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.journeyId, t.id] }),
    index('journey_nodes_tenant_content_idx').on(t.tenantId, t.contentId).where(sql`content_id is not null`),
  ],
);

export const journeyEdges = pgTable(
  'journey_edges',
  {
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    ord: integer('ord').notNull(),
    tenantId: tenantRef(),
    sourceNodeId: uuid('source_node_id').notNull(),
    targetNodeId: uuid('target_node_id').notNull(),
    label: text('label'),
  },
  (t) => [primaryKey({ columns: [t.journeyId, t.ord] })],
);

export const journeyEnrollments = pgTable(
  'journey_enrollments',
  {
    id: uuid('id').primaryKey(),
    tenantId: tenantRef(),
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    endUserId: uuid('end_user_id')
      .notNull()
      .references(() => endUsers.id, { onDelete: 'cascade' }),
    status: text('status').$type<EnrollmentStatus>().notNull().default('in_progress'),
    currentNodeId: uuid('current_node_id'),
    // json, not jsonb: written and read whole, never searched (migration 0057).
    state: json('state').$type<Record<string, unknown>>().notNull(),
    // The journey version the enrollment runs (the one live when it entered), migration 0098.
    journeyVersion: integer('journey_version'),
    enrolledAt: ts('enrolled_at').notNull(),
    endedAt: ts('ended_at'),
    goalReachedAt: ts('goal_reached_at'),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('journey_enrollments_active_key')
      .on(t.journeyId, t.endUserId)
      .where(sql`status = 'in_progress'`),
    index('journey_enrollments_user_active_idx')
      .on(t.tenantId, t.endUserId)
      .where(sql`status = 'in_progress'`),
    index('journey_enrollments_version_active_idx')
      .on(t.journeyId, t.journeyVersion)
      .where(sql`status = 'in_progress'`),
    index('journey_enrollments_journey_user_idx').on(t.journeyId, t.endUserId),
    index('journey_enrollments_journey_enrolled_idx').on(
      t.journeyId,
      t.enrolledAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    checkOneOf('journey_enrollments_status_check', 'status', ENROLLMENT_STATUSES),
  ],
);

export const journeyNodeVisits = pgTable(
  'journey_node_visits',
  {
    enrollmentId: uuid('enrollment_id')
      .notNull()
      .references(() => journeyEnrollments.id, { onDelete: 'cascade' }),
    nodeId: uuid('node_id').notNull(),
    visit: integer('visit').notNull(),
    // The enrollment's (no foreign keys of their own: migration 0056).
    tenantId: uuid('tenant_id').notNull(),
    journeyId: uuid('journey_id').notNull(),
    enteredAt: ts('entered_at').notNull(),
    exitedAt: ts('exited_at'),
    edgeLabel: text('edge_label'),
  },
  (t) => [
    primaryKey({ columns: [t.enrollmentId, t.nodeId, t.visit] }),
    index('journey_node_visits_journey_node_idx').on(t.journeyId, t.nodeId),
  ],
);

export const journeyTimers = pgTable(
  'journey_timers',
  {
    enrollmentId: uuid('enrollment_id')
      .notNull()
      .references(() => journeyEnrollments.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'node' | 'deadline'>().notNull(),
    // The enrollment's (no foreign keys of their own: migration 0056).
    tenantId: uuid('tenant_id').notNull(),
    journeyId: uuid('journey_id').notNull(),
    nodeId: uuid('node_id'),
    visit: integer('visit').notNull().default(0),
    dueAt: ts('due_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.enrollmentId, t.kind] }),
    index('journey_timers_due_idx').on(t.dueAt),
    check('journey_timers_kind_check', sql`kind in ('node', 'deadline')`),
  ],
);
