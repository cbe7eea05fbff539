import {
  bigint,
  customType,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * Analytics rollups (migration 0013), maintained by event processing and read by the analytics
 * routes. The migration is the source of truth (its `include (...)` index clause has no drizzle
 * equivalent).
 */

const counter = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);
const day = () => date('day', { mode: 'string' }).notNull();
const varbit = customType<{ data: string; driverData: string }>({ dataType: () => 'varbit' });

export const analyticsDailyEvents = pgTable(
  'analytics_daily_events',
  {
    tenantId: uuid('tenant_id').notNull(),
    day: day(),
    type: text('type').notNull(),
    events: bigint('events', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day, t.type] })],
);

export const analyticsFlowDaily = pgTable(
  'analytics_flow_daily',
  {
    tenantId: uuid('tenant_id').notNull(),
    flowId: uuid('flow_id').notNull(),
    day: day(),
    starts: counter('starts'),
    completed: counter('completed'),
    dismissed: counter('dismissed'),
    skipped: counter('skipped'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.flowId, t.day] }),
    index('analytics_flow_daily_tenant_day_idx').on(t.tenantId, t.day),
  ],
);

/**
 * Days each user was active in a scope (`active`, `step:<flowId>:<i>`, `done:<flowId>`). Days are
 * only ever added: running processors remember committed days (`KnownDays`, reach.ts), so
 * anything that removes or rewrites them (a purge, a re-aggregation, a restore that loses
 * commits) must come with every instance restarted.
 */
export const analyticsUserDays = pgTable(
  'analytics_user_days',
  {
    tenantId: uuid('tenant_id').notNull(),
    scope: text('scope').notNull(),
    userKey: text('user_key').notNull(),
    origin: date('origin', { mode: 'string' }).notNull(),
    /** Bit i set = active on `origin` + i days, as a '0'/'1' string. */
    days: varbit('days').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope, t.userKey] })],
);

/** (user, active day) points counted by (day, previous active day of that user in the scope). */
export const analyticsReach = pgTable(
  'analytics_reach',
  {
    tenantId: uuid('tenant_id').notNull(),
    scope: text('scope').notNull(),
    day: day(),
    /** '-infinity' for a user's first active day in the scope. */
    prevDay: date('prev_day', { mode: 'string' }).notNull(),
    users: bigint('users', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope, t.day, t.prevDay] })],
);

export const analyticsHeatmapPoints = pgTable(
  'analytics_heatmap_points',
  {
    tenantId: uuid('tenant_id').notNull(),
    urlKey: uuid('url_key').notNull(),
    day: day(),
    x: integer('x').notNull(),
    y: integer('y').notNull(),
    selector: text('selector').notNull(),
    clicks: counter('clicks'),
    rageClicks: counter('rage_clicks'),
    deadClicks: counter('dead_clicks'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.urlKey, t.day, t.x, t.y, t.selector] })],
);

export const analyticsHeatmapElements = pgTable(
  'analytics_heatmap_elements',
  {
    tenantId: uuid('tenant_id').notNull(),
    urlKey: uuid('url_key').notNull(),
    day: day(),
    selector: text('selector').notNull(),
    clicks: counter('clicks'),
    rageClicks: counter('rage_clicks'),
    deadClicks: counter('dead_clicks'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.urlKey, t.day, t.selector] })],
);
