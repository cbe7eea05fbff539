import { and, count, eq, gt, gte, lt, lte, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client.js';
import { flowSteps, flows } from '../../db/schema/index.js';
import { audit } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { sameJson } from '../../platform/same-json.js';
import {
  type FlowCtx,
  type FlowStepRecord,
  findFlow,
  flowMissing,
  loadSteps,
  stepColumns,
  stepMissing,
  toStep,
} from './records.js';
import { type CreateStepInput, MAX_FLOW_STEPS, type UpdateStepInput } from './schemas.js';

/**
 * Steps of one flow. `order` is always the contiguous sequence 0..n-1: every write locks the flow
 * row first (so writes to one flow's steps run one at a time), shifts the neighbours, and relies on
 * the DEFERRABLE unique (flow_id, order) being checked at commit. Steps of an archived flow may
 * still be edited (the flow keeps its record; it can be restored).
 */

const sameFlow = (ctx: FlowCtx, flowId: string) =>
  and(eq(flowSteps.tenantId, ctx.tenantId), eq(flowSteps.flowId, flowId));

/** Locks the flow and bumps its updatedAt; 404 when it is not the tenant's. */
async function touchFlow(tx: Transaction, ctx: FlowCtx, flowId: string): Promise<void> {
  if (!isUuid(flowId)) throw flowMissing();
  const [row] = await tx
    .update(flows)
    .set({ updatedAt: ctx.now })
    .where(and(eq(flows.tenantId, ctx.tenantId), eq(flows.id, flowId)))
    .returning({ id: flows.id });
  if (!row) throw flowMissing();
}

async function stepCount(tx: Transaction, ctx: FlowCtx, flowId: string): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(flowSteps).where(sameFlow(ctx, flowId));
  return row?.n ?? 0;
}

async function findStep(tx: Transaction, ctx: FlowCtx, flowId: string, stepId: string) {
  if (!isUuid(stepId)) return null;
  const [row] = await tx
    .select(stepColumns)
    .from(flowSteps)
    .where(and(sameFlow(ctx, flowId), eq(flowSteps.id, stepId)))
    .limit(1);
  return row ?? null;
}

const auditSteps = (
  ctx: FlowCtx,
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

export async function listSteps(ctx: FlowCtx, flowId: string): Promise<FlowStepRecord[]> {
  const flow = await findFlow(ctx.db, ctx.tenantId, flowId);
  if (!flow) throw flowMissing();
  return (await loadSteps(ctx.db, ctx.tenantId, flow.id)).map(toStep);
}

export async function getStep(ctx: FlowCtx, flowId: string, stepId: string): Promise<FlowStepRecord> {
  const flow = await findFlow(ctx.db, ctx.tenantId, flowId);
  if (!flow) throw flowMissing();
  if (!isUuid(stepId)) throw stepMissing();
  const [row] = await ctx.db
    .select(stepColumns)
    .from(flowSteps)
    .where(and(sameFlow(ctx, flow.id), eq(flowSteps.id, stepId)))
    .limit(1);
  if (!row) throw stepMissing();
  return toStep(row);
}

/** Inserts at `order` (shifting the rest down); absent or past the end appends. */
export async function addStep(ctx: FlowCtx, flowId: string, input: CreateStepInput): Promise<FlowStepRecord> {
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
      .values({
        id: newId(),
        tenantId: ctx.tenantId,
        flowId,
        order: position,
        type: input.type,
        targetSelector: input.targetSelector ?? null,
        content: input.content ?? {},
        settings: input.settings ?? {},
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning(stepColumns);
    await auditSteps(ctx, tx, flowId, 'step_added', { stepId: row!.id, order: position });
    return toStep(row!);
  });
}

/** Locks the flow row without changing it; 404 when it is not the tenant's. */
async function lockFlow(tx: Transaction, ctx: FlowCtx, flowId: string): Promise<void> {
  if (!isUuid(flowId)) throw flowMissing();
  const [row] = await tx
    .select({ id: flows.id })
    .from(flows)
    .where(and(eq(flows.tenantId, ctx.tenantId), eq(flows.id, flowId)))
    .for('update');
  if (!row) throw flowMissing();
}

/**
 * Partial update; `order` moves the step (past the end: last), the others close up around it.
 * A PATCH whose every field equals the stored value (an order past the end of the last step
 * included), or an empty one, answers the step as it is: no write, no audit row, neither the
 * step's nor the flow's updatedAt bumped.
 */
export async function updateStep(
  ctx: FlowCtx,
  flowId: string,
  stepId: string,
  input: UpdateStepInput,
): Promise<FlowStepRecord> {
  return ctx.db.transaction(async (tx) => {
    await lockFlow(tx, ctx, flowId);
    const step = await findStep(tx, ctx, flowId, stepId);
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
      .returning(stepColumns);
    await auditSteps(ctx, tx, flowId, 'step_updated', { stepId: step.id, fields: changed });
    return toStep(row!);
  });
}

/** Hard delete; the steps after it move up one. */
export async function deleteStep(ctx: FlowCtx, flowId: string, stepId: string): Promise<void> {
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

/** `stepIds` must be exactly the flow's step ids (each once), in the new order. */
export async function reorderSteps(
  ctx: FlowCtx,
  flowId: string,
  stepIds: string[],
): Promise<FlowStepRecord[]> {
  return ctx.db.transaction(async (tx) => {
    await touchFlow(tx, ctx, flowId);
    const current = await loadSteps(tx, ctx.tenantId, flowId);
    const known = new Set(current.map((s) => s.id));
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const id of stepIds) {
      if (seen.has(id)) problems.push(`${id} is listed twice`);
      else if (!known.has(id)) problems.push(`${id} is not a step of this flow`);
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
    const moved = stepIds.filter((id, i) => current[i]!.id !== id);
    if (moved.length > 0) {
      const positions = sql.join(
        stepIds.map((id, i) => sql`when ${id}::uuid then ${i}::integer`),
        sql` `,
      );
      await tx
        .update(flowSteps)
        .set({ order: sql`case ${flowSteps.id} ${positions} end`, updatedAt: ctx.now })
        .where(sameFlow(ctx, flowId));
    }
    await auditSteps(ctx, tx, flowId, 'steps_reordered', { stepIds });
    return (await loadSteps(tx, ctx.tenantId, flowId)).map(toStep);
  });
}
