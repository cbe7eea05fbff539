import { type Column, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import {
  analyticsDailyEvents,
  analyticsFlowDaily,
  analyticsHeatmapElements,
  analyticsHeatmapPoints,
  analyticsReach,
  flows,
} from '../../../db/schema/index.js';
import { fixedStatement, runStatement } from '../../../db/statements.js';
import type { DayRange } from '../keys.js';

/**
 * The analytics reads: sums over the rollups (never the event log), so their cost depends on the
 * days in the range, not on the number of events or users. Each is one fixed statement (rendered
 * once); sums arrive as the driver gives bigints and numerics (text), and callers read them with
 * `Number`.
 *
 * One read joins a table another module owns: the flow totals join `flows` to count only the
 * tenant's flows (see sumFlowEvents), a filter that cannot go through the flows surface without
 * reading every flow id first.
 */

const p = sql.placeholder;
type RangeValues = { tenantId: string; startDay: string; endDay: string };
const rangeValues = (tenantId: string, range: DayRange): RangeValues => ({
  tenantId,
  startDay: range.startDay,
  endDay: range.endDay,
});
const inRange = (day: Column) => sql`${day} between ${p('startDay')}::date and ${p('endDay')}::date`;

const r = analyticsReach;
const reachStatement = fixedStatement<{ scope: string; n: unknown }, RangeValues & { scopes: string[] }>(
  sql`select ${r.scope}, sum(${r.users}) as n from ${r}
    where ${r.tenantId} = ${p('tenantId')} and ${r.scope} = any(${p('scopes')}::text[]) and ${inRange(r.day)}
      and ${r.prevDay} < ${p('startDay')}::date
    group by ${r.scope}`,
);

/**
 * Distinct users of each scope active in the range (reach.ts): the points whose day is in the
 * range and whose previous active day is before it.
 */
export function sumReach(exec: Executor, tenantId: string, scopes: string[], range: DayRange) {
  return runStatement(exec, reachStatement, { ...rangeValues(tenantId, range), scopes });
}

const de = analyticsDailyEvents;
const dailyEventsStatement = fixedStatement<{ n: unknown }, RangeValues>(
  sql`select sum(${de.events}) as n from ${de} where ${de.tenantId} = ${p('tenantId')} and ${inRange(de.day)}`,
);

/** The events clients sent in the range. */
export async function sumDailyEvents(exec: Executor, tenantId: string, range: DayRange): Promise<unknown> {
  const [row] = await runStatement(exec, dailyEventsStatement, rangeValues(tenantId, range));
  return row?.n;
}

type FlowSums = { starts: unknown; completed: unknown; dismissed: unknown; skipped: unknown };
const fd = analyticsFlowDaily;
const flowTotals = (oneFlow: boolean) =>
  fixedStatement<FlowSums, RangeValues & { flowId?: string }>(
    sql`select sum(${fd.starts}) as starts, sum(${fd.completed}) as completed, sum(${fd.dismissed}) as dismissed,
        sum(${fd.skipped}) as skipped
      from ${fd}
      join ${flows} on ${flows.tenantId} = ${fd.tenantId} and ${flows.id} = ${fd.flowId}
      where ${fd.tenantId} = ${p('tenantId')} and ${inRange(fd.day)}
        ${oneFlow ? sql`and ${fd.flowId} = ${p('flowId')}` : sql``}`,
  );
const allFlowsStatement = flowTotals(false);
const oneFlowStatement = flowTotals(true);

/**
 * Flow event counts in the range: of one flow, or of all the tenant's flows. Events are counted
 * only for flows of the tenant: any API key holder can send a flow event naming any id (another
 * tenant's flow, or none), and the rollups keep what was sent; the join with the tenant's flows
 * (archived ones included; a read of the flows module's table) keeps such ids out of every figure.
 */
export async function sumFlowEvents(
  exec: Executor,
  tenantId: string,
  range: DayRange,
  flowId?: string,
): Promise<FlowSums | undefined> {
  const [row] =
    flowId === undefined
      ? await runStatement(exec, allFlowsStatement, rangeValues(tenantId, range))
      : await runStatement(exec, oneFlowStatement, { ...rangeValues(tenantId, range), flowId });
  return row;
}

type HeatmapValues = RangeValues & { url: string };
const ofPage = (t: typeof analyticsHeatmapPoints | typeof analyticsHeatmapElements) =>
  sql`${t.tenantId} = ${p('tenantId')} and ${t.urlKey} = md5(${p('url')})::uuid and ${inRange(t.day)}`;

/** The most points and selectors a heatmap answers. */
export const MAX_HEATMAP_POINTS = 5_000;
export const MAX_HEATMAP_ELEMENTS = 1_000;

const hp = analyticsHeatmapPoints;
const heatmapPointsStatement = fixedStatement<
  { x: number; y: number; selector: string; c: unknown; r: unknown; d: unknown },
  HeatmapValues
>(
  sql`select ${hp.x}, ${hp.y}, ${hp.selector}, sum(${hp.clicks}) as c, sum(${hp.rageClicks}) as r,
      sum(${hp.deadClicks}) as d
    from ${hp} where ${ofPage(hp)}
    group by ${hp.x}, ${hp.y}, ${hp.selector}
    order by c desc, r desc, d desc, ${hp.y}, ${hp.x}, ${hp.selector} limit ${sql.raw(String(MAX_HEATMAP_POINTS))}`,
);

/** The page's most clicked points in the range (at most MAX_HEATMAP_POINTS), with their sums. */
export function sumHeatmapPoints(exec: Executor, tenantId: string, url: string, range: DayRange) {
  return runStatement(exec, heatmapPointsStatement, { ...rangeValues(tenantId, range), url });
}

const he = analyticsHeatmapElements;
// '' (the clicks without a selector) is one row at most, hence the + 1.
const heatmapSelectorsStatement = fixedStatement<
  { selector: string; c: unknown; r: unknown; d: unknown; total: unknown },
  HeatmapValues
>(
  sql`select ${he.selector}, sum(${he.clicks}) as c, sum(${he.rageClicks}) as r, sum(${he.deadClicks}) as d,
      sum(sum(${he.clicks})) over () as total
    from ${he} where ${ofPage(he)}
    group by ${he.selector}
    order by c desc, r desc, d desc, ${he.selector} limit ${sql.raw(String(MAX_HEATMAP_ELEMENTS + 1))}`,
);

/**
 * The page's selectors in the range, most clicked first (at most MAX_HEATMAP_ELEMENTS and ''),
 * with their sums. Every selector's sums, the clicks without one ('') included: the window sum
 * over all of them (taken before the limit) is the page's total (`total`, on every row).
 */
export function sumHeatmapSelectors(exec: Executor, tenantId: string, url: string, range: DayRange) {
  return runStatement(exec, heatmapSelectorsStatement, { ...rangeValues(tenantId, range), url });
}
