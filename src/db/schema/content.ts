// Tables of the content domain (migration 0004): content items of six types, NPS surveys and
// the responses to both.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import type { MatchType } from '../../engine/url-match.js';
import { checkOneOf, created, ts, updated } from './columns.js';
import { tenants } from './platform.js';

export const CONTENT_TYPES = [
  'tooltips',
  'beacons',
  'task-lists',
  'surveys',
  'announcements',
  'self-help',
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const CONTENT_STATUSES = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/**
 * Trigger configuration of content and NPS surveys, as stored: one shape per type (validated by
 * the content module's `triggerConfigSchema`, whose output must be assignable to this where NPS
 * surveys store it), and any field a later version adds.
 */
export type TriggerConfig = Record<string, unknown> &
  (
    | { type: 'exit_intent'; url?: string }
    | { type: 'scroll_depth'; url?: string; percentage: number }
    | { type: 'time_on_page'; url?: string; delay: number }
    | { type: 'side_button'; buttonColor?: string; buttonPosition: 'left' | 'right' }
    | { type: 'url_match'; pattern: string; matchType?: MatchType }
    | { type: 'manual' }
  );

export const contentItems = pgTable(
  'content_items',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    type: text('type').$type<ContentType>().notNull(),
    name: text('name').notNull(),
    siteId: uuid('site_id').notNull(),
    status: text('status').$type<ContentStatus>().notNull().default('DRAFT'),
    audienceId: uuid('audience_id'),
    triggerConfig: jsonb('trigger_config').$type<TriggerConfig | null>(),
    targetUrl: text('target_url'),
    /** The type-specific fields (tooltip content, task-list items, survey questions, …). */
    body: jsonb('body').$type<Record<string, unknown>>().notNull().default({}),
    priority: integer('priority').notNull().default(0),
    bypassCaps: boolean('bypass_caps').notNull().default(false),
    scheduledAt: ts('scheduled_at'),
    expiresAt: ts('expires_at'),
    publishedAt: ts('published_at'),
    archivedAt: ts('archived_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('content_items_tenant_type_created_idx').on(
      t.tenantId,
      t.type,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('content_items_tenant_type_status_idx').on(t.tenantId, t.type, t.status),
    index('content_items_tenant_audience_idx')
      .on(t.tenantId, t.audienceId)
      .where(sql`audience_id is not null`),
    index('content_items_due_idx').on(t.scheduledAt).where(sql`status = 'SCHEDULED'`),
    index('content_items_expiry_idx')
      .on(t.expiresAt)
      .where(sql`status in ('PUBLISHED', 'SCHEDULED') and expires_at is not null`),
    index('content_items_tenant_published_idx').on(t.tenantId).where(sql`status = 'PUBLISHED'`),
    check(
      'content_items_type_check',
      sql`type in ('tooltips', 'beacons', 'task-lists', 'surveys', 'announcements', 'self-help')`,
    ),
    checkOneOf('content_items_status_check', 'status', CONTENT_STATUSES),
  ],
);

export const npsSurveys = pgTable(
  'nps_surveys',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    siteId: uuid('site_id').notNull(),
    status: text('status').$type<ContentStatus>().notNull().default('DRAFT'),
    audienceId: uuid('audience_id'),
    triggerConfig: jsonb('trigger_config').$type<TriggerConfig | null>(),
    question: text('question').notNull(),
    followUpQuestion: text('follow_up_question'),
    publishedAt: ts('published_at'),
    archivedAt: ts('archived_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('nps_surveys_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('nps_surveys_tenant_status_idx').on(t.tenantId, t.status),
    index('nps_surveys_tenant_audience_idx').on(t.tenantId, t.audienceId).where(sql`audience_id is not null`),
    checkOneOf('nps_surveys_status_check', 'status', CONTENT_STATUSES),
  ],
);

/** Responses to `surveys` content items, keyed by question key; written by event processing. */
export const surveyResponses = pgTable(
  'survey_responses',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    surveyId: uuid('survey_id')
      .notNull()
      .references(() => contentItems.id, { onDelete: 'cascade' }),
    endUserId: uuid('end_user_id'),
    response: jsonb('response').$type<Record<string, unknown>>().notNull().default({}),
    submittedAt: ts('submitted_at').notNull().defaultNow(),
    /** The SDK event that carried the response: a retried batch writes it once. */
    eventId: uuid('event_id'),
    createdAt: created(),
  },
  (t) => [
    unique('survey_responses_event_key').on(t.tenantId, t.eventId),
    index('survey_responses_tenant_survey_idx').on(
      t.tenantId,
      t.surveyId,
      t.submittedAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // Exports read responses in stored order (migration 0094).
    index('survey_responses_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
  ],
);

export const npsResponses = pgTable(
  'nps_responses',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    npsSurveyId: uuid('nps_survey_id')
      .notNull()
      .references(() => npsSurveys.id, { onDelete: 'cascade' }),
    endUserId: uuid('end_user_id'),
    score: integer('score').notNull(),
    comment: text('comment'),
    submittedAt: ts('submitted_at').notNull().defaultNow(),
    eventId: uuid('event_id'),
    createdAt: created(),
  },
  (t) => [
    unique('nps_responses_event_key').on(t.tenantId, t.eventId),
    index('nps_responses_tenant_survey_idx').on(
      t.tenantId,
      t.npsSurveyId,
      t.submittedAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    check('nps_responses_score_check', sql`score >= 0 and score <= 10`),
  ],
);
