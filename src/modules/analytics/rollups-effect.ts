import type { Executor } from '../../db/client.js';
import { SEP, sortedByKey } from '../../db/raw.js';
import type { EventEffect, ProcessedBatch, StoredEvent } from '../events/index.js';
import {
  ACTIVE_SCOPE,
  activeUserOf,
  completedScope,
  coordinateOf,
  dayOf,
  epochDay,
  flowIdOf,
  flowUserOf,
  heatmapUrl,
  selectorOf,
  stepIndexOf,
  stepScope,
  USER_ID,
} from './keys.js';
import { KNOWN_DAYS, type KnownDays, ReachChanges, writeReach } from './reach.js';
import { addDailyEvents, addFlowDailyCounts, addHeatmapElements, addHeatmapPoints } from './store/rollups.js';

/**
 * The analytics rollups of a chunk of batches: aggregated in memory first, then one set-based
 * upsert per table. Exactly-once comes from the processor's transaction (the batches are
 * marked processed in it), so nothing here deduplicates.
 */

interface Counters {
  clicks: number;
  rage: number;
  dead: number;
}

interface FlowCounts {
  starts: number;
  completed: number;
  dismissed: number;
  skipped: number;
}

interface DailyEvents {
  tenantId: string;
  day: string;
  type: string;
  n: number;
}

/** Aggregated rows, keyed by their primary key (joined with NUL) so each key is written once. */
interface Rollups {
  /** (tenant NUL day) → type → row: per event, only the type is looked up (see `dailyOf`). */
  dailyEvents: Map<string, Map<string, DailyEvents>>;
  lastDaily: { tenantId: string; day: string; byType: Map<string, DailyEvents> } | undefined;
  flowDaily: Map<string, { tenantId: string; flowId: string; day: string } & FlowCounts>;
  /** Distinct users: active users, step reach and flow completers (see reach.ts). */
  reach: ReachChanges;
  /** A flow's scope strings, made once per chunk: `done` and each step's. */
  flowScopes: Map<string, { done: string; steps: string[] }>;
  heatPoints: Map<
    string,
    { tenantId: string; url: string; day: string; x: number; y: number; selector: string } & Counters
  >;
  heatElements: Map<string, { tenantId: string; url: string; day: string; selector: string } & Counters>;
}

function emptyRollups(): Rollups {
  return {
    dailyEvents: new Map(),
    lastDaily: undefined,
    flowDaily: new Map(),
    reach: new ReachChanges(),
    flowScopes: new Map(),
    heatPoints: new Map(),
    heatElements: new Map(),
  };
}

/** The daily counters of a tenant's day, by type (the last pair asked is kept: events come in runs). */
function dailyOf(r: Rollups, tenantId: string, day: string): Map<string, DailyEvents> {
  const last = r.lastDaily;
  if (last && last.tenantId === tenantId && last.day === day) return last.byType;
  const key = tenantId + SEP + day;
  let byType = r.dailyEvents.get(key);
  if (!byType) {
    byType = new Map();
    r.dailyEvents.set(key, byType);
  }
  r.lastDaily = { tenantId, day, byType };
  return byType;
}

/** The rows of `dailyEvents` by their (tenant NUL day NUL type) key. */
function dailyRows(r: Rollups): Map<string, DailyEvents> {
  const rows = new Map<string, DailyEvents>();
  for (const byType of r.dailyEvents.values())
    for (const row of byType.values()) rows.set(row.tenantId + SEP + row.day + SEP + row.type, row);
  return rows;
}

function flowScopesOf(r: Rollups, flowId: string): { done: string; steps: string[] } {
  let scopes = r.flowScopes.get(flowId);
  if (!scopes) {
    scopes = { done: completedScope(flowId), steps: [] };
    r.flowScopes.set(flowId, scopes);
  }
  return scopes;
}

const FLOW_COUNTER: Partial<Record<StoredEvent['type'], keyof FlowCounts>> = {
  FLOW_STARTED: 'starts',
  FLOW_COMPLETED: 'completed',
  FLOW_DISMISSED: 'dismissed',
  FLOW_SKIPPED: 'skipped',
};

const CLICK_COUNTER: Partial<Record<StoredEvent['type'], keyof Counters>> = {
  CLICK: 'clicks',
  RAGE_CLICK: 'rage',
  DEAD_CLICK: 'dead',
};

/** Adds one event of a tenant to the in-memory rollups (pure). */
function addEvent(r: Rollups, tenantId: string, e: StoredEvent): void {
  const day = dayOf(e.timestamp);

  // totalEvents counts what clients sent; events the service records itself (session starts,
  // IDENTIFY) still make their user active.
  if (!e.serverGenerated) {
    const byType = dailyOf(r, tenantId, day);
    const daily = byType.get(e.type);
    if (daily) daily.n++;
    else byType.set(e.type, { tenantId, day, type: e.type, n: 1 });
  }

  const user = activeUserOf(e);
  if (user !== null)
    r.reach.addUserDay(
      tenantId,
      ACTIVE_SCOPE,
      user,
      user === USER_ID ? e.userId! : e.anonymousId!,
      epochDay(day),
    );

  const flowCounter = FLOW_COUNTER[e.type];
  if (flowCounter || e.type === 'STEP_VIEWED') {
    const flowId = flowIdOf(e.properties);
    if (flowId !== null) addFlowEvent(r, tenantId, flowId, day, e, flowCounter);
  }

  const clickCounter = CLICK_COUNTER[e.type];
  if (clickCounter) {
    const url = heatmapUrl(e.url);
    if (url !== null) addClick(r, tenantId, url, day, e.properties, clickCounter);
  }
}

function addFlowEvent(
  r: Rollups,
  tenantId: string,
  flowId: string,
  day: string,
  e: StoredEvent,
  counter: keyof FlowCounts | undefined,
): void {
  if (counter) {
    const fk = tenantId + SEP + flowId + SEP + day;
    let row = r.flowDaily.get(fk);
    if (!row) {
      row = { tenantId, flowId, day, starts: 0, completed: 0, dismissed: 0, skipped: 0 };
      r.flowDaily.set(fk, row);
    }
    row[counter]++;
  }
  let scope: string | null = null;
  if (e.type === 'FLOW_COMPLETED') scope = flowScopesOf(r, flowId).done;
  else if (e.type === 'STEP_VIEWED') {
    const step = stepIndexOf(e.properties);
    if (step !== null) {
      const { steps } = flowScopesOf(r, flowId);
      scope = steps[step] ??= stepScope(flowId, step);
    }
  }
  if (scope === null) return;
  const user = flowUserOf(e);
  if (user === null) r.reach.addLoneDay(tenantId, scope, epochDay(day));
  else r.reach.addUserDay(tenantId, scope, user, e.userId!, epochDay(day));
}

function addClick(
  r: Rollups,
  tenantId: string,
  url: string,
  day: string,
  props: Record<string, unknown> | undefined,
  counter: keyof Counters,
): void {
  const selector = selectorOf(props?.selector);
  const ek = tenantId + SEP + url + SEP + day + SEP + selector;
  let element = r.heatElements.get(ek);
  if (!element) {
    element = { tenantId, url, day, selector, clicks: 0, rage: 0, dead: 0 };
    r.heatElements.set(ek, element);
  }
  element[counter]++;

  const x = coordinateOf(props?.x);
  const y = coordinateOf(props?.y);
  if (x === null || y === null) return;
  const pk = ek + SEP + x + SEP + y;
  let point = r.heatPoints.get(pk);
  if (!point) {
    point = { tenantId, url, day, x, y, selector, clicks: 0, rage: 0, dead: 0 };
    r.heatPoints.set(pk, point);
  }
  point[counter]++;
}

/** The rollups of a chunk of batches (pure). */
function aggregateRollups(batches: readonly Pick<ProcessedBatch, 'tenantId' | 'events'>[]): Rollups {
  const r = emptyRollups();
  for (const b of batches) for (const e of b.events) addEvent(r, b.tenantId, e);
  return r;
}

/** Writes `map`'s rows in key order (a tenant's day counters are shared: see sortedByKey). */
async function upsert<T>(
  tx: Executor,
  write: (tx: Executor, rows: readonly T[]) => Promise<void>,
  map: Map<string, T>,
) {
  if (map.size === 0) return;
  await write(tx, sortedByKey(map));
}

/** Writes aggregated rollups: one statement per counter table that has rows, four for reach. */
async function writeRollups(tx: Executor, r: Rollups, known?: KnownDays): Promise<void> {
  await upsert(tx, addDailyEvents, dailyRows(r));
  await upsert(tx, addFlowDailyCounts, r.flowDaily);
  await upsert(tx, addHeatmapPoints, r.heatPoints);
  await upsert(tx, addHeatmapElements, r.heatElements);
  await writeReach(tx, r.reach, known);
}

/** Applies the rollups of these batches inside `tx` (the effect's whole work). */
async function applyRollups(
  tx: Executor,
  batches: readonly Pick<ProcessedBatch, 'tenantId' | 'events'>[],
  known?: KnownDays,
): Promise<void> {
  await writeRollups(tx, aggregateRollups(batches), known);
}

export const analyticsRollupsEffect: EventEffect = {
  name: 'analytics-rollups',
  apply: (tx, batches, ctx) => applyRollups(tx, batches, ctx.memo(KNOWN_DAYS)),
};
