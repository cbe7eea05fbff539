import type { Executor } from '../../db/client.js';
import type { ServiceCtx } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { EARLIEST_EVENT_DAY } from '../events/index.js';
import { countFlowsByStatus, findFlow, flowMissing, loadSteps } from '../flows/index.js';
import { ACTIVE_SCOPE, completedScope, type DayRange, dayOf, heatmapUrl, stepScope } from './keys.js';
import type { HeatmapQuery, RangeQuery } from './schemas.js';
import {
  MAX_HEATMAP_ELEMENTS,
  sumDailyEvents,
  sumFlowEvents,
  sumHeatmapPoints,
  sumHeatmapSelectors,
  sumReach,
} from './store/reports.js';

/**
 * The analytics reads. They touch only the rollups of migration 0013 (and the flows tables),
 * never the event log: overview and per-flow cost depends on the number of days in the range,
 * not on the number of events or users; heatmaps on the distinct points of the page.
 */

/** The days counted, and the `dateRange` answered: the bounds as sent, else the defaulted day. */
interface ResolvedRange extends DayRange {
  dateRange: { startDate: string; endDate: string };
}

/**
 * Resolves the query's bounds to whole UTC days. Without startDate the range starts at
 * EARLIEST_EVENT_DAY (no event has an earlier day: ingest settles such timestamps to the receive
 * time); without endDate it ends today (UTC). Both sent with start after end: 400. A bound left
 * open never makes the range invalid: it defaults to the other bound's day when that one lies
 * beyond the default (an endDate before 2000, a startDate after today). A range of any length
 * costs the same few queries: each sums per-day rollup rows in SQL, nothing here walks the days.
 */
function resolveRange(query: RangeQuery, now: Date): ResolvedRange {
  // A date is its own UTC day; a date-time (validated, with offset) the UTC day it falls on.
  const sentStart = query.startDate === undefined ? null : dayOf(query.startDate);
  const sentEnd = query.endDate === undefined ? null : dayOf(query.endDate);
  if (sentStart !== null && sentEnd !== null && sentStart > sentEnd) {
    throw validationError([{ path: 'query.startDate', message: 'startDate must not be after endDate' }]);
  }
  const today = dayOf(now.toISOString());
  const endDay = sentEnd ?? (sentStart !== null && sentStart > today ? sentStart : today);
  // biome-ignore lint/complexity/useMathMinMax: days are YYYY-MM-DD strings, not numbers
  const startDay = sentStart ?? (endDay < EARLIEST_EVENT_DAY ? endDay : EARLIEST_EVENT_DAY);
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
  const rows = await sumReach(exec, tenantId, scopes, range);
  return new Map(rows.map((r) => [r.scope, num(r.n)]));
}

/** Flow event counts in the range: of one flow, or of all the tenant's flows (only flows of the tenant count). */
async function flowTotals(exec: Executor, tenantId: string, range: DayRange, flowId?: string) {
  const t = await sumFlowEvents(exec, tenantId, range, flowId);
  return {
    starts: num(t?.starts),
    completed: num(t?.completed),
    dismissed: num(t?.dismissed),
    skipped: num(t?.skipped),
  };
}

export async function getOverview(ctx: ServiceCtx, query: RangeQuery) {
  const range = resolveRange(query, ctx.now);
  const { db, tenantId } = ctx;
  const [flowCounts, events, totals, active] = await Promise.all([
    countFlowsByStatus(db, tenantId),
    sumDailyEvents(db, tenantId, range),
    flowTotals(db, tenantId, range),
    reachOf(db, tenantId, [ACTIVE_SCOPE], range),
  ]);
  return {
    totalFlows: flowCounts.total,
    publishedFlows: flowCounts.published,
    activeUsers: active.get(ACTIVE_SCOPE) ?? 0,
    totalEvents: num(events),
    flowCompletions: totals.completed,
    completionRate: ratio(totals.completed, totals.starts),
    dateRange: range.dateRange,
  };
}

export async function getFlowAnalytics(ctx: ServiceCtx, flowId: string, query: RangeQuery) {
  const range = resolveRange(query, ctx.now);
  const { db, tenantId } = ctx;
  // Checked first: the steps and totals queries below take the id as a uuid.
  if (!isUuid(flowId)) throw flowMissing();
  const [flow, steps, totals] = await Promise.all([
    findFlow(db, tenantId, flowId),
    loadSteps(db, tenantId, flowId),
    flowTotals(db, tenantId, range, flowId),
  ]);
  if (!flow) throw flowMissing();
  const scopes = [completedScope(flow.id), ...steps.map((s) => stepScope(flow.id, s.order))];
  const reach = await reachOf(db, tenantId, scopes, range);
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
  return {
    flowId: flow.id,
    flowName: flow.name,
    totalStarts: totals.starts,
    completed: totals.completed,
    dismissed: totals.dismissed,
    skipped: totals.skipped,
    completionRate: ratio(totals.completed, totals.starts),
    stepDropOff,
    dateRange: range.dateRange,
  };
}

export async function getHeatmap(ctx: ServiceCtx, query: HeatmapQuery) {
  const range = resolveRange(query, ctx.now);
  const { db, tenantId } = ctx;
  const url = heatmapUrl(query.url);
  const base = { url: url ?? query.url, dateRange: range.dateRange };
  if (url === null) return { ...base, totalClicks: 0, points: [], elements: [] };
  const [points, selectors] = await Promise.all([
    sumHeatmapPoints(db, tenantId, url, range),
    sumHeatmapSelectors(db, tenantId, url, range),
  ]);
  const elements = selectors.filter((e) => e.selector !== '').slice(0, MAX_HEATMAP_ELEMENTS);
  return {
    ...base,
    totalClicks: num(selectors[0]?.total),
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
