import {
  and,
  asc,
  count,
  desc,
  eq,
  gte,
  ilike,
  inArray,
  isNotNull,
  isNull,
  lte,
  ne,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { FLOW_STATUSES, type FlowStatus, flowSteps, flows } from '../../db/schema/index.js';
import { isUuid } from '../../platform/ids.js';
import { containsPattern, listPage, type PageRequest } from '../../platform/pagination.js';
import { liveAt } from '../../platform/schedule.js';
import type { StateColumns } from '../../platform/state-machine.js';
import { audienceReferrers } from '../audiences/index.js';

/** The queries of the flows module: its tables `flows` and `flow_steps`, nobody else's. */

export { FLOW_STATUSES, type FlowStatus };
export type FlowRow = typeof flows.$inferSelect;
export type NewFlowRow = typeof flows.$inferInsert;
export type StepRow = typeof flowSteps.$inferSelect;
export type NewStepRow = typeof flowSteps.$inferInsert;

// ---- flows -----------------------------------------------------------------------------------

/** The flow row of the tenant (locked for update with `lock`); a malformed id simply matches nothing. */
export async function findFlow(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<FlowRow | undefined> {
  if (!isUuid(id)) return undefined;
  const query = exec
    .select()
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), eq(flows.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

/** Whether `id` is a flow of the tenant (any status). */
export async function flowExists(exec: Executor, tenantId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const [row] = await exec
    .select({ id: flows.id })
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), eq(flows.id, id)))
    .limit(1);
  return Boolean(row);
}

export interface FlowListFilter {
  /** One status; absent: every status but ARCHIVED (archived flows are soft-deleted). */
  status?: FlowStatus | undefined;
  template?: string | undefined;
  siteId?: string | undefined;
  /** Case-insensitive substring of the name. */
  search?: string | undefined;
}

// Columns of the outer query are qualified by hand: drizzle prints them bare inside a subquery.
const stepCount = sql<number>`(select count(*) from flow_steps s where s.flow_id = "flows"."id" and s.tenant_id = "flows"."tenant_id")`;

/** A page of the tenant's flows, newest first, each with its number of steps. */
export function listFlowsPage(exec: Executor, tenantId: string, filter: FlowListFilter, page: PageRequest) {
  const where: SQL[] = [eq(flows.tenantId, tenantId)];
  where.push(filter.status ? eq(flows.status, filter.status) : ne(flows.status, 'ARCHIVED'));
  if (filter.template) where.push(eq(flows.template, filter.template));
  if (filter.siteId) where.push(eq(flows.siteId, filter.siteId));
  if (filter.search) where.push(ilike(flows.name, containsPattern(filter.search)));
  return listPage(
    exec
      .select({
        id: flows.id,
        name: flows.name,
        description: flows.description,
        template: flows.template,
        status: flows.status,
        tenantId: flows.tenantId,
        siteId: flows.siteId,
        audienceId: flows.audienceId,
        trigger: flows.trigger,
        scheduledAt: flows.scheduledAt,
        expiresAt: flows.expiresAt,
        priority: flows.priority,
        bypassCaps: flows.bypassCaps,
        createdAt: flows.createdAt,
        updatedAt: flows.updatedAt,
        steps: stepCount.mapWith(Number),
      })
      .from(flows)
      .where(and(...where))
      .orderBy(desc(flows.createdAt), desc(flows.id)),
    exec
      .select({ n: count() })
      .from(flows)
      .where(and(...where)),
    page,
  );
}

/** The tenant's PUBLISHED flows not expired at `now`, newest first. */
export function listLiveFlows(exec: Executor, tenantId: string, now: Date): Promise<FlowRow[]> {
  return exec
    .select()
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), liveAt(flows, now)))
    .orderBy(desc(flows.createdAt), desc(flows.id));
}

/** How many of the tenant's flows are not archived, and how many of those are published. */
export async function countFlowsByStatus(
  exec: Executor,
  tenantId: string,
): Promise<{ total: number; published: number }> {
  const [row] = await exec
    .select({
      total: count(),
      published: sql<number>`count(*) filter (where ${flows.status} = 'PUBLISHED')`.mapWith(Number),
    })
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), ne(flows.status, 'ARCHIVED')));
  return { total: row?.total ?? 0, published: row?.published ?? 0 };
}

export async function insertFlow(exec: Executor, values: NewFlowRow): Promise<FlowRow> {
  const [row] = await exec.insert(flows).values(values).returning();
  return row!;
}

/** Writes `set` on the tenant's flow; the row after, or undefined when there is none. */
export async function updateFlowRow(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<NewFlowRow>,
): Promise<FlowRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await exec
    .update(flows)
    .set(set)
    .where(and(eq(flows.tenantId, tenantId), eq(flows.id, id)))
    .returning();
  return row;
}

/** Which flows a scheduled move takes: SCHEDULED ones whose time has come, or those past their expiry. */
export type FlowsDue = 'scheduledAtReached' | 'expired';

const dueAt = (due: FlowsDue, now: Date): SQL =>
  due === 'scheduledAtReached'
    ? or(isNull(flows.scheduledAt), lte(flows.scheduledAt, now))!
    : and(isNotNull(flows.expiresAt), lte(flows.expiresAt, now))!;

/**
 * The scheduler's move, over every tenant: one conditional UPDATE of the flows in a `from` state
 * that are `due` at `now`. PostgreSQL re-checks the WHERE of a row another transaction just
 * changed, so when several instances run it at once each flow moves once. The flows moved.
 */
export function moveDueFlows(
  exec: Executor,
  from: readonly FlowStatus[],
  due: FlowsDue,
  set: StateColumns<FlowStatus>,
  now: Date,
): Promise<{ id: string; tenantId: string; name: string }[]> {
  return exec
    .update(flows)
    .set(set)
    .where(and(inArray(flows.status, [...from]), dueAt(due, now)))
    .returning({ id: flows.id, tenantId: flows.tenantId, name: flows.name });
}

/** "Which flows still target this audience?" (the audiences module's finder over this table). */
export const flowsTargetingAudience = audienceReferrers(flows, { type: 'flow', archived: 'ARCHIVED' });

// ---- steps -----------------------------------------------------------------------------------

const stepsOfFlow = (tenantId: string, flowId: string) =>
  and(eq(flowSteps.tenantId, tenantId), eq(flowSteps.flowId, flowId));

/** One step of the flow; a malformed id simply matches nothing. */
export async function findStep(
  exec: Executor,
  tenantId: string,
  flowId: string,
  stepId: string,
): Promise<StepRow | undefined> {
  if (!isUuid(stepId)) return undefined;
  const [row] = await exec
    .select()
    .from(flowSteps)
    .where(and(stepsOfFlow(tenantId, flowId), eq(flowSteps.id, stepId)))
    .limit(1);
  return row;
}

/** The flow's steps in order. */
export function loadSteps(exec: Executor, tenantId: string, flowId: string): Promise<StepRow[]> {
  return exec.select().from(flowSteps).where(stepsOfFlow(tenantId, flowId)).orderBy(asc(flowSteps.order));
}

/** Steps of several flows in one query, grouped by flow and ordered. */
export async function loadStepsOf(
  exec: Executor,
  tenantId: string,
  flowIds: string[],
): Promise<Map<string, StepRow[]>> {
  const byFlow = new Map<string, StepRow[]>(flowIds.map((id) => [id, []]));
  if (flowIds.length === 0) return byFlow;
  const rows = await exec
    .select()
    .from(flowSteps)
    .where(and(eq(flowSteps.tenantId, tenantId), inArray(flowSteps.flowId, flowIds)))
    .orderBy(asc(flowSteps.flowId), asc(flowSteps.order));
  for (const row of rows) byFlow.get(row.flowId)?.push(row);
  return byFlow;
}

export async function countSteps(exec: Executor, tenantId: string, flowId: string): Promise<number> {
  const [row] = await exec.select({ n: count() }).from(flowSteps).where(stepsOfFlow(tenantId, flowId));
  return row?.n ?? 0;
}

/** Inserts rows as given (ids, orders and times included); nothing for none. */
export async function insertSteps(exec: Executor, rows: NewStepRow[]): Promise<void> {
  if (rows.length === 0) return;
  await exec.insert(flowSteps).values(rows);
}

export async function insertStep(exec: Executor, row: NewStepRow): Promise<StepRow> {
  const [inserted] = await exec.insert(flowSteps).values(row).returning();
  return inserted!;
}

/** Writes `set` on one step of the flow; the row after, or undefined when there is none. */
export async function updateStepRow(
  exec: Executor,
  tenantId: string,
  flowId: string,
  stepId: string,
  set: Partial<NewStepRow>,
): Promise<StepRow | undefined> {
  const [row] = await exec
    .update(flowSteps)
    .set(set)
    .where(and(stepsOfFlow(tenantId, flowId), eq(flowSteps.id, stepId)))
    .returning();
  return row;
}

/** Deletes one step of the flow; its order, or undefined when there was none. */
export async function deleteStepRow(
  exec: Executor,
  tenantId: string,
  flowId: string,
  stepId: string,
): Promise<{ order: number } | undefined> {
  if (!isUuid(stepId)) return undefined;
  const [gone] = await exec
    .delete(flowSteps)
    .where(and(stepsOfFlow(tenantId, flowId), eq(flowSteps.id, stepId)))
    .returning({ order: flowSteps.order });
  return gone;
}

export async function deleteStepsOf(exec: Executor, tenantId: string, flowId: string): Promise<void> {
  await exec.delete(flowSteps).where(stepsOfFlow(tenantId, flowId));
}

/**
 * Moves by `by` (+1 or −1) the order of the flow's steps whose order is in [`from`, `to`]
 * (`to` absent: to the end). The unique (flow_id, order) is deferred to commit.
 */
export async function shiftSteps(
  exec: Executor,
  tenantId: string,
  flowId: string,
  range: { from: number; to?: number },
  by: 1 | -1,
): Promise<void> {
  const within = [gte(flowSteps.order, range.from)];
  if (range.to !== undefined) within.push(lte(flowSteps.order, range.to));
  await exec
    .update(flowSteps)
    .set({ order: by === 1 ? sql`${flowSteps.order} + 1` : sql`${flowSteps.order} - 1` })
    .where(and(stepsOfFlow(tenantId, flowId), ...within));
}

/** Gives each listed step of the flow its index in `stepIds` as its order, in one statement. */
export async function setStepOrders(
  exec: Executor,
  tenantId: string,
  flowId: string,
  stepIds: readonly string[],
  now: Date,
): Promise<void> {
  const positions = sql.join(
    stepIds.map((id, i) => sql`when ${id}::uuid then ${i}::integer`),
    sql` `,
  );
  await exec
    .update(flowSteps)
    .set({ order: sql`case ${flowSteps.id} ${positions} end`, updatedAt: now })
    .where(stepsOfFlow(tenantId, flowId));
}

// ---- targeting (issue 40) ----------------------------------------------------------------------

/** A step as targeting reads it: where it is, what it targets, the fingerprint it serves. */
export interface StepTarget {
  id: string;
  tenantId: string;
  flowId: string;
  flowName: string;
  order: number;
  targetSelector: string | null;
  targetFingerprint: Record<string, unknown> | null;
}

const stepTargetColumns = {
  id: flowSteps.id,
  tenantId: flowSteps.tenantId,
  flowId: flowSteps.flowId,
  flowName: flows.name,
  order: flowSteps.order,
  targetSelector: flowSteps.targetSelector,
  targetFingerprint: flowSteps.targetFingerprint,
};

/**
 * The steps of `ids` (any tenant's: a chunk of events spans tenants; callers match the tenant),
 * with their flow's name. One query.
 */
export async function findStepTargets(exec: Executor, ids: string[]): Promise<StepTarget[]> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return [];
  return exec
    .select(stepTargetColumns)
    .from(flowSteps)
    .innerJoin(flows, eq(flows.id, flowSteps.flowId))
    .where(inArray(flowSteps.id, wanted));
}

/** Sets the fingerprint each step serves (the delivery version moves with the rows: migration 0014). */
export async function setStepFingerprints(
  exec: Executor,
  rows: { tenantId: string; id: string; fingerprint: Record<string, unknown> | null }[],
): Promise<void> {
  for (const r of rows) {
    await exec
      .update(flowSteps)
      .set({ targetFingerprint: r.fingerprint })
      .where(and(eq(flowSteps.tenantId, r.tenantId), eq(flowSteps.id, r.id)));
  }
}
