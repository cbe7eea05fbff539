import { and, count, eq, gt, gte, lt, lte, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client.js';
import { flowSteps, flows } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { sameJson } from '../../platform/same-json.js';
import {
  type FlowStepRecord,
  findFlow,
  findStep,
  flowMissing,
  loadSteps,
  stepMissing,
  stepValues,
  toStep,
} from './records.js';
import { type CreateStepInput, MAX_FLOW_STEPS, type UpdateStepInput } from './schemas.js';

/**
 * Steps of one flow. `order` is always the contiguous sequence 0..n-1: every write locks the flow
 * row first (so writes to one flow's steps run one at a time), shifts the neighbours, and relies on
 * the DEFERRABLE unique (flow_id, order) being checked at commit. Steps of an archived flow may
 * still be edited (the flow keeps its record; it can be restored).
 */

const sameFlow = (ctx: ServiceCtx, flowId: string) =>
  and(eq(flowSteps.tenantId, ctx.tenantId), eq(flowSteps.flowId, flowId));

/** Locks the flow and bumps its updatedAt; 404 when it is not the tenant's. */
async function touchFlow(tx: Transaction, ctx: ServiceCtx, flowId: string): Promise<void> {
  if (!isUuid(flowId)) throw flowMissing();
  const [row] = await tx
    .update(flows)
    .set({ updatedAt: ctx.now })
    .where(and(eq(flows.tenantId, ctx.tenantId), eq(flows.id, flowId)))
    .returning({ id: flows.id });
  if (!row) throw flowMissing();
}

/** Locks the flow row without changing it; 404 when it is not the tenant's. */
async function lockFlow(tx: Transaction, ctx: ServiceCtx, flowId: string): Promise<void> {
  if (!(await findFlow(tx, ctx.tenantId, flowId, { lock: true }))) throw flowMissing();
}

async function stepCount(tx: Transaction, ctx: ServiceCtx, flowId: string): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(flowSteps).where(sameFlow(ctx, flowId));
  return row?.n ?? 0;
}

const auditSteps = (
  ctx: ServiceCtx,
  tx: Transaction,
  flowId: string,
  operation: string,
  extra: Record<string, unknown>,
) =>
  audit(ctx, tx, {
    action: 'FLOW_UPDATED',
    entityType: 'flow',
    entityId: flowId,
    metadata: { changed: ['steps'], operation, ...extra },
  });

export async function listSteps(ctx: ServiceCtx, flowId: string): Promise<FlowStepRecord[]> {
  const flow = await findFlow(ctx.db, ctx.tenantId, flowId);
  if (!flow) throw flowMissing();
  return (await loadSteps(ctx.db, ctx.tenantId, flow.id)).map(toStep);
}

export async function getStep(ctx: ServiceCtx, flowId: string, stepId: string): Promise<FlowStepRecord> {
  const flow = await findFlow(ctx.db, ctx.tenantId, flowId);
  if (!flow) throw flowMissing();
  const step = await findStep(ctx.db, ctx.tenantId, flow.id, stepId);
  if (!step) throw stepMissing();
  return toStep(step);
}

/** Inserts at `order` (shifting the rest down); absent or past the end appends. */
export async function addStep(
  ctx: ServiceCtx,
  flowId: string,
  input: CreateStepInput,
): Promise<FlowStepRecord> {
  return ctx.db.transaction(async (tx) => {
    await touchFlow(tx, ctx, flowId);
    const n = await stepCount(tx, ctx, flowId);
    if (n >= MAX_FLOW_STEPS) {
      throw validationError([{ path: 'steps', message: `a flow has at most ${MAX_FLOW_STEPS} steps` }]);
    }
    const position = input.order === undefined || input.order > n ? n : input.order;
    if (position < n) {
      await tx
        .update(flowSteps)
        .set({ order: sql`${flowSteps.order} + 1` })
        .where(and(sameFlow(ctx, flowId), gte(flowSteps.order, position)));
    }
    const [row] = await tx
      .insert(flowSteps)
      .values(stepValues(ctx, flowId, position, input))
      .returning();
    await auditSteps(ctx, tx, flowId, 'step_added', { stepId: row!.id, order: position });
    return toStep(row!);
  });
}

/**
 * Partial update; `order` moves the step (past the end: last), the others close up around it.
 * A PATCH whose every field equals the stored value (an order past the end of the last step
 * included), or an empty one, answers the step as it is: no write, no audit row, neither the
 * step's nor the flow's updatedAt bumped.
 */
export async function updateStep(
  ctx: ServiceCtx,
  flowId: string,
  stepId: string,
  input: UpdateStepInput,
): Promise<FlowStepRecord> {
  return ctx.db.transaction(async (tx) => {
    await lockFlow(tx, ctx, flowId);
    const step = await findStep(tx, ctx.tenantId, flowId, stepId);
    if (!step) throw stepMissing();
    const set: Partial<typeof flowSteps.$inferInsert> = { updatedAt: ctx.now };
    const changed: string[] = [];
    for (const key of ['type', 'targetSelector', 'content', 'settings'] as const) {
      if (input[key] !== undefined && !sameJson(input[key], step[key])) {
        (set as Record<string, unknown>)[key] = input[key];
        changed.push(key);
      }
    }
    const from = step.order;
    const target =
      input.order === undefined ? from : Math.min(input.order, (await stepCount(tx, ctx, flowId)) - 1);
    if (target !== from) changed.push('order');
    if (changed.length === 0) return toStep(step);
    await touchFlow(tx, ctx, flowId);
    if (target > from) {
      await tx
        .update(flowSteps)
        .set({ order: sql`${flowSteps.order} - 1` })
        .where(and(sameFlow(ctx, flowId), gt(flowSteps.order, from), lte(flowSteps.order, target)));
    } else if (target < from) {
      await tx
        .update(flowSteps)
        .set({ order: sql`${flowSteps.order} + 1` })
        .where(and(sameFlow(ctx, flowId), gte(flowSteps.order, target), lt(flowSteps.order, from)));
    }
    set.order = target;
    const [row] = await tx
      .update(flowSteps)
      .set(set)
      .where(and(sameFlow(ctx, flowId), eq(flowSteps.id, step.id)))
      .returning();
    await auditSteps(ctx, tx, flowId, 'step_updated', { stepId: step.id, fields: changed });
    return toStep(row!);
  });
}

/** Hard delete; the steps after it move up one. */
export async function deleteStep(ctx: ServiceCtx, flowId: string, stepId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await touchFlow(tx, ctx, flowId);
    if (!isUuid(stepId)) throw stepMissing();
    const [gone] = await tx
      .delete(flowSteps)
      .where(and(sameFlow(ctx, flowId), eq(flowSteps.id, stepId)))
      .returning({ order: flowSteps.order });
    if (!gone) throw stepMissing();
    await tx
      .update(flowSteps)
      .set({ order: sql`${flowSteps.order} - 1` })
      .where(and(sameFlow(ctx, flowId), gt(flowSteps.order, gone.order)));
    await auditSteps(ctx, tx, flowId, 'step_deleted', { stepId, order: gone.order });
  });
}

/**
 * `stepIds` must be exactly the flow's step ids (each once), in the new order. An order that
 * moves nothing answers the steps as they are: no write, no audit row, updatedAt unchanged.
 */
export async function reorderSteps(
  ctx: ServiceCtx,
  flowId: string,
  stepIds: string[],
): Promise<FlowStepRecord[]> {
  return ctx.db.transaction(async (tx) => {
    await lockFlow(tx, ctx, flowId);
    const current = await loadSteps(tx, ctx.tenantId, flowId);
    const byId = new Map(current.map((s) => [s.id, s]));
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const id of stepIds) {
      if (seen.has(id)) problems.push(`${id} is listed twice`);
      else if (!byId.has(id)) problems.push(`${id} is not a step of this flow`);
      seen.add(id);
    }
    const missing = current.filter((s) => !seen.has(s.id)).map((s) => s.id);
    if (missing.length > 0) problems.push(`missing step ids: ${missing.join(', ')}`);
    if (problems.length > 0) {
      throw validationError([
        {
          path: 'stepIds',
          message: `stepIds must list every step of the flow exactly once: ${problems.join('; ')}`,
        },
      ]);
    }
    if (stepIds.every((id, i) => current[i]!.id === id)) return current.map(toStep);
    await touchFlow(tx, ctx, flowId);
    const positions = sql.join(
      stepIds.map((id, i) => sql`when ${id}::uuid then ${i}::integer`),
      sql` `,
    );
    await tx
      .update(flowSteps)
      .set({ order: sql`case ${flowSteps.id} ${positions} end`, updatedAt: ctx.now })
      .where(sameFlow(ctx, flowId));
    await auditSteps(ctx, tx, flowId, 'steps_reordered', { stepIds });
    return stepIds.map((id, i) => toStep({ ...byId.get(id)!, order: i, updatedAt: ctx.now }));
  });
}
