import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import {
  analyticsDailyEvents,
  analyticsFlowDaily,
  analyticsHeatmapElements,
  analyticsHeatmapPoints,
} from '../../../db/schema/index.js';
import { bare, columnList, fixedStatement, runPrepared } from '../../../db/statements.js';

/**
 * The writes of the counter rollups, on the event-processing hot path: each a set-based upsert of
 * any number of rows (`unnest` of one array per column), rendered once and run as a named
 * prepared statement (bench/README.md, "Events pipeline, memory and compression"). Rows come in key order: concurrent
 * processors then lock shared rows in the same order (db/raw.ts, sortedByKey).
 */

const p = sql.placeholder;
/** `set c = <table>.c + excluded.c` for each counter. */
const addCounters = (...columns: Parameters<typeof bare>[0][]) =>
  sql.join(
    columns.map((c) => sql`${bare(c)} = ${c} + excluded.${bare(c)}`),
    sql`, `,
  );

const d = analyticsDailyEvents;
const upsertDailyEventsStatement = fixedStatement<
  never,
  { tenantIds: string[]; days: string[]; types: string[]; events: number[] }
>(
  sql`insert into ${d} ${columnList([d.tenantId, d.day, d.type, d.events])}
  select * from unnest(${p('tenantIds')}::uuid[], ${p('days')}::date[], ${p('types')}::text[], ${p('events')}::bigint[])
  on conflict ${columnList([d.tenantId, d.day, d.type])} do update set ${addCounters(d.events)}`,
);

/** Adds `n` events of `type` to the tenant's day (`day`: YYYY-MM-DD). */
export async function addDailyEvents(
  tx: Executor,
  rows: readonly { tenantId: string; day: string; type: string; n: number }[],
): Promise<void> {
  await runPrepared(tx, upsertDailyEventsStatement, {
    tenantIds: rows.map((r) => r.tenantId),
    days: rows.map((r) => r.day),
    types: rows.map((r) => r.type),
    events: rows.map((r) => r.n),
  });
}

const f = analyticsFlowDaily;
const upsertFlowDailyStatement = fixedStatement<
  never,
  {
    tenantIds: string[];
    flowIds: string[];
    days: string[];
    starts: number[];
    completed: number[];
    dismissed: number[];
    skipped: number[];
  }
>(
  sql`insert into ${f} ${columnList([f.tenantId, f.flowId, f.day, f.starts, f.completed, f.dismissed, f.skipped])}
  select * from unnest(${p('tenantIds')}::uuid[], ${p('flowIds')}::uuid[], ${p('days')}::date[], ${p('starts')}::bigint[],
    ${p('completed')}::bigint[], ${p('dismissed')}::bigint[], ${p('skipped')}::bigint[])
  on conflict ${columnList([f.tenantId, f.flowId, f.day])} do update set
    ${addCounters(f.starts, f.completed, f.dismissed, f.skipped)}`,
);

export interface FlowDayCounts {
  tenantId: string;
  flowId: string;
  day: string;
  starts: number;
  completed: number;
  dismissed: number;
  skipped: number;
}

/** Adds flow event counts to each (tenant, flow, day). */
export async function addFlowDailyCounts(tx: Executor, rows: readonly FlowDayCounts[]): Promise<void> {
  await runPrepared(tx, upsertFlowDailyStatement, {
    tenantIds: rows.map((r) => r.tenantId),
    flowIds: rows.map((r) => r.flowId),
    days: rows.map((r) => r.day),
    starts: rows.map((r) => r.starts),
    completed: rows.map((r) => r.completed),
    dismissed: rows.map((r) => r.dismissed),
    skipped: rows.map((r) => r.skipped),
  });
}

/** Clicks, rage clicks and dead clicks of a heatmap row. */
interface ClickCounts {
  clicks: number;
  rage: number;
  dead: number;
}

const hp = analyticsHeatmapPoints;
const upsertHeatmapPointsStatement = fixedStatement<
  never,
  {
    tenantIds: string[];
    urls: string[];
    days: string[];
    xs: number[];
    ys: number[];
    selectors: string[];
    clicks: number[];
    rage: number[];
    dead: number[];
  }
>(
  sql`insert into ${hp} ${columnList([hp.tenantId, hp.urlKey, hp.day, hp.x, hp.y, hp.selector, hp.clicks, hp.rageClicks, hp.deadClicks])}
  select tenant_id, md5(url)::uuid, day, x, y, selector, c, r, d
  from unnest(${p('tenantIds')}::uuid[], ${p('urls')}::text[], ${p('days')}::date[], ${p('xs')}::int[], ${p('ys')}::int[],
    ${p('selectors')}::text[], ${p('clicks')}::bigint[], ${p('rage')}::bigint[], ${p('dead')}::bigint[])
    as u (tenant_id, url, day, x, y, selector, c, r, d)
  on conflict ${columnList([hp.tenantId, hp.urlKey, hp.day, hp.x, hp.y, hp.selector])} do update set
    ${addCounters(hp.clicks, hp.rageClicks, hp.deadClicks)}`,
);

/** Adds clicks to each (tenant, page `url` (its md5 is the key), day, point, selector). */
export async function addHeatmapPoints(
  tx: Executor,
  rows: readonly ({
    tenantId: string;
    url: string;
    day: string;
    x: number;
    y: number;
    selector: string;
  } & ClickCounts)[],
): Promise<void> {
  await runPrepared(tx, upsertHeatmapPointsStatement, {
    tenantIds: rows.map((r) => r.tenantId),
    urls: rows.map((r) => r.url),
    days: rows.map((r) => r.day),
    xs: rows.map((r) => r.x),
    ys: rows.map((r) => r.y),
    selectors: rows.map((r) => r.selector),
    clicks: rows.map((r) => r.clicks),
    rage: rows.map((r) => r.rage),
    dead: rows.map((r) => r.dead),
  });
}

const he = analyticsHeatmapElements;
const upsertHeatmapElementsStatement = fixedStatement<
  never,
  {
    tenantIds: string[];
    urls: string[];
    days: string[];
    selectors: string[];
    clicks: number[];
    rage: number[];
    dead: number[];
  }
>(
  sql`insert into ${he} ${columnList([he.tenantId, he.urlKey, he.day, he.selector, he.clicks, he.rageClicks, he.deadClicks])}
  select tenant_id, md5(url)::uuid, day, selector, c, r, d
  from unnest(${p('tenantIds')}::uuid[], ${p('urls')}::text[], ${p('days')}::date[], ${p('selectors')}::text[],
    ${p('clicks')}::bigint[], ${p('rage')}::bigint[], ${p('dead')}::bigint[])
    as u (tenant_id, url, day, selector, c, r, d)
  on conflict ${columnList([he.tenantId, he.urlKey, he.day, he.selector])} do update set
    ${addCounters(he.clicks, he.rageClicks, he.deadClicks)}`,
);

/** Adds clicks to each (tenant, page `url` (its md5 is the key), day, selector). */
export async function addHeatmapElements(
  tx: Executor,
  rows: readonly ({ tenantId: string; url: string; day: string; selector: string } & ClickCounts)[],
): Promise<void> {
  await runPrepared(tx, upsertHeatmapElementsStatement, {
    tenantIds: rows.map((r) => r.tenantId),
    urls: rows.map((r) => r.url),
    days: rows.map((r) => r.day),
    selectors: rows.map((r) => r.selector),
    clicks: rows.map((r) => r.clicks),
    rage: rows.map((r) => r.rage),
    dead: rows.map((r) => r.dead),
  });
}
