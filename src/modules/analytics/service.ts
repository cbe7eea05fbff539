import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { rawQuery } from '../../db/raw.js';
import { flowSteps, flows } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import { contentNotFound, validationError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { ACTIVE_SCOPE, completedScope, type DayRange, heatmapUrl, stepScope } from './keys.js';
import type { HeatmapQuery, RangeQuery } from './schemas.js';

/**
 * The analytics reads. They touch only the rollups of migration 0013 (and the flows tables),
 * never the event log: overview and per-flow cost depends on the number of days in the range,
 * not on the number of events or users; heatmaps on the distinct points of the page.
 */

/**
 * Without startDate the range starts at ALL_TIME_START (the distinct-user rollups ignore earlier
 * days); without endDate it ends today (UTC). A range of any length costs the same few queries:
 * each sums per-day rollup rows in SQL, nothing here walks the days.
 */
export const ALL_TIME_START = '2000-01-01';
export const MAX_HEATMAP_POINTS = 5_000;
export const MAX_HEATMAP_ELEMENTS = 1_000;

const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The UTC day of a validated bound: a date as is, a date-time the UTC day it falls on. */
const dayOfBound = (s: string) => (s.length === 10 ? s : dayString(Date.parse(s)));

/** The days counted, and the `dateRange` answered: the bounds as sent, else the defaulted day. */
export interface ResolvedRange extends DayRange {
  dateRange: { startDate: string; endDate: string };
}

/**
 * Resolves the query's bounds to whole UTC days. Both sent with start after end: 400. A bound
 * left open never makes the range invalid: it defaults to the other bound's day when that one
 * lies beyond the default (an endDate before 2000, a startDate after today).
 */
export function resolveRange(query: RangeQuery, now: number): ResolvedRange {
  const sentStart = query.startDate === undefined ? null : dayOfBound(query.startDate);
  const sentEnd = query.endDate === undefined ? null : dayOfBound(query.endDate);
  if (sentStart !== null && sentEnd !== null && sentStart > sentEnd) {
    throw validationError([{ path: 'query.startDate', message: 'startDate must not be after endDate' }]);
  }
  const today = dayString(now);
  const endDay = sentEnd ?? (sentStart !== null && sentStart > today ? sentStart : today);
  const startDay = sentStart ?? (endDay < ALL_TIME_START ? endDay : ALL_TIME_START);
  return {
    startDay,
    endDay,
    dateRange: { startDate: query.startDate ?? startDay, endDate: query.endDate ?? endDay },
  };
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const ratio = (part: number, whole: number) => (whole > 0 ? Math.min(1, part / whole) : 0);

/**
 * Distinct users of each scope active in the range (see reach.ts): the points whose day is in
 * the range and whose previous active day is before it.
 */
async function reachOf(exec: Executor, tenantId: string, scopes: string[], range: DayRange) {
  const rows = await rawQuery<{ scope: string; n: unknown }>(
    exec,
    `select scope, sum(users) as n from analytics_reach
     where tenant_id = $1 and scope = any($2::text[]) and day between $3::date and $4::date and prev_day < $3::date
     group by scope`,
    [tenantId, scopes, range.startDay, range.endDay],
  );
  return new Map(rows.map((r) => [r.scope, num(r.n)]));
}

export async function getOverview(ctx: ServiceCtx, query: RangeQuery, now: number) {
  const range = resolveRange(query, now);
  const { db, tenantId } = ctx;
  const [flowCounts, events, flowTotals, active] = await Promise.all([
    db
      .select({
        total: count(),
        published: sql<number>`count(*) filter (where ${flows.status} = 'PUBLISHED')`.mapWith(Number),
      })
      .from(flows)
      .where(and(eq(flows.tenantId, tenantId), ne(flows.status, 'ARCHIVED'))),
    rawQuery<{ n: unknown }>(
      db,
      `select sum(events) as n from analytics_daily_events
       where tenant_id = $1 and day between $2::date and $3::date`,
      [tenantId, range.startDay, range.endDay],
    ),
    rawQuery<{ starts: unknown; completed: unknown }>(
      db,
      `select sum(starts) as starts, sum(completed) as completed from analytics_flow_daily
       where tenant_id = $1 and day between $2::date and $3::date`,
      [tenantId, range.startDay, range.endDay],
    ),
    reachOf(db, tenantId, [ACTIVE_SCOPE], range),
  ]);
  const starts = num(flowTotals[0]?.starts);
  const completions = num(flowTotals[0]?.completed);
  return {
    totalFlows: flowCounts[0]?.total ?? 0,
    publishedFlows: flowCounts[0]?.published ?? 0,
    activeUsers: active.get(ACTIVE_SCOPE) ?? 0,
    totalEvents: num(events[0]?.n),
    flowCompletions: completions,
    completionRate: ratio(completions, starts),
    dateRange: range.dateRange,
  };
}

export async function getFlowAnalytics(ctx: ServiceCtx, flowId: string, query: RangeQuery, now: number) {
  const range = resolveRange(query, now);
  const { db, tenantId } = ctx;
  if (!isUuid(flowId)) throw contentNotFound('Flow');
  const [flow] = await db
    .select({ id: flows.id, name: flows.name })
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), eq(flows.id, flowId)))
    .limit(1);
  if (!flow) throw contentNotFound('Flow');
  const steps = await db
    .select({ id: flowSteps.id, order: flowSteps.order, content: flowSteps.content })
    .from(flowSteps)
    .where(and(eq(flowSteps.tenantId, tenantId), eq(flowSteps.flowId, flow.id)))
    .orderBy(asc(flowSteps.order));
  const scopes = [completedScope(flow.id), ...steps.map((s) => stepScope(flow.id, s.order))];
  const [totals, reach] = await Promise.all([
    rawQuery<{ starts: unknown; completed: unknown; dismissed: unknown; skipped: unknown }>(
      db,
      `select sum(starts) as starts, sum(completed) as completed, sum(dismissed) as dismissed,
         sum(skipped) as skipped
       from analytics_flow_daily where tenant_id = $1 and flow_id = $2 and day between $3::date and $4::date`,
      [tenantId, flow.id, range.startDay, range.endDay],
    ),
    reachOf(db, tenantId, scopes, range),
  ]);
  const reached = (order: number) => reach.get(stepScope(flow.id, order)) ?? 0;
  const completedUsers = reach.get(completedScope(flow.id)) ?? 0;
  const stepDropOff = steps.map((step, i) => {
    const here = reached(step.order);
    const next = i + 1 < steps.length ? reached(steps[i + 1]!.order) : completedUsers;
    // More users may reach a later step than an earlier one (events lost, deep links): clamp at 0.
    const dropOffCount = Math.max(0, here - next);
    const title = step.content?.title;
    return {
      stepId: step.id,
      stepOrder: step.order,
      stepTitle: typeof title === 'string' ? title : null,
      reached: here,
      dropOffCount,
      dropOffRate: here > 0 ? dropOffCount / here : 0,
    };
  });
  const t = totals[0];
  const totalStarts = num(t?.starts);
  const completed = num(t?.completed);
  return {
    flowId: flow.id,
    flowName: flow.name,
    totalStarts,
    completed,
    dismissed: num(t?.dismissed),
    skipped: num(t?.skipped),
    completionRate: ratio(completed, totalStarts),
    stepDropOff,
    dateRange: range.dateRange,
  };
}

export async function getHeatmap(ctx: ServiceCtx, query: HeatmapQuery, now: number) {
  const range = resolveRange(query, now);
  const { db, tenantId } = ctx;
  const url = heatmapUrl(query.url);
  const base = { url: url ?? query.url, dateRange: range.dateRange };
  if (url === null) return { ...base, totalClicks: 0, points: [], elements: [] };
  const params = [tenantId, url, range.startDay, range.endDay];
  const where = 'tenant_id = $1 and url_key = md5($2)::uuid and day between $3::date and $4::date';
  const [points, elements, total] = await Promise.all([
    rawQuery<{ x: number; y: number; selector: string; c: unknown; r: unknown; d: unknown }>(
      db,
      `select x, y, selector, sum(clicks) as c, sum(rage_clicks) as r, sum(dead_clicks) as d
       from analytics_heatmap_points where ${where}
       group by x, y, selector
       order by c desc, r desc, d desc, y, x, selector limit ${MAX_HEATMAP_POINTS}`,
      params,
    ),
    rawQuery<{ selector: string; c: unknown; r: unknown; d: unknown }>(
      db,
      `select selector, sum(clicks) as c, sum(rage_clicks) as r, sum(dead_clicks) as d
       from analytics_heatmap_elements where ${where} and selector <> ''
       group by selector
       order by c desc, r desc, d desc, selector limit ${MAX_HEATMAP_ELEMENTS}`,
      params,
    ),
    rawQuery<{ n: unknown }>(
      db,
      `select sum(clicks) as n from analytics_heatmap_elements where ${where}`,
      params,
    ),
  ]);
  return {
    ...base,
    totalClicks: num(total[0]?.n),
    points: points.map((p) => ({
      x: Number(p.x),
      y: Number(p.y),
      selector: p.selector === '' ? null : p.selector,
      count: num(p.c),
      rageClicks: num(p.r),
      deadClicks: num(p.d),
    })),
    elements: elements.map((e) => ({
      selector: e.selector,
      clicks: num(e.c),
      rageClicks: num(e.r),
      deadClicks: num(e.d),
    })),
  };
}
