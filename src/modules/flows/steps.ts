import type { Transaction } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { sameJson } from '../../platform/same-json.js';
import { type FlowStepRecord, flowMissing, stepMissing, stepValues, toStep } from './records.js';
import { type CreateStepInput, MAX_FLOW_STEPS, type UpdateStepInput } from './schemas.js';
import {
  countSteps,
  deleteStepRow,
  findFlow,
  findStep,
  insertStep,
  loadSteps,
  type NewStepRow,
  setStepOrders,
  shiftSteps,
  updateFlowRow,
  updateStepRow,
} from './store.js';

/**
 * Steps of one flow. `order` is always the contiguous sequence 0..n-1: every write locks the flow
 * row first (so writes to one flow's steps run one at a time), shifts the neighbours, and relies on
 * the DEFERRABLE unique (flow_id, order) being checked at commit. Steps of an archived flow may
 * still be edited (the flow keeps its record; it can be restored).
 */

/** Locks the flow and bumps its updatedAt; 404 when it is not the tenant's. */
async function touchFlow(tx: Transaction, ctx: ServiceCtx, flowId: string): Promise<void> {
  if (!(await updateFlowRow(tx, ctx.tenantId, flowId, { updatedAt: ctx.now }))) throw flowMissing();
}

/** Locks the flow row without changing it; 404 when it is not the tenant's. */
async function lockFlow(tx: Transaction, ctx: ServiceCtx, flowId: string): Promise<void> {
  if (!(await findFlow(tx, ctx.tenantId, flowId, { lock: true }))) throw flowMissing();
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
    const n = await countSteps(tx, ctx.tenantId, flowId);
    if (n >= MAX_FLOW_STEPS) {
      throw validationError([{ path: 'steps', message: `a flow has at most ${MAX_FLOW_STEPS} steps` }]);
    }
    const position = input.order === undefined || input.order > n ? n : input.order;
    if (position < n) await shiftSteps(tx, ctx.tenantId, flowId, { from: position }, 1);
    const row = await insertStep(tx, stepValues(ctx, flowId, position, input));
    await auditSteps(ctx, tx, flowId, 'step_added', { stepId: row.id, order: position });
    return toStep(row);
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
    const set: Partial<NewStepRow> = { updatedAt: ctx.now };
    const changed: string[] = [];
    for (const key of ['type', 'targetSelector', 'targetFingerprint', 'content', 'settings'] as const) {
      if (input[key] !== undefined && !sameJson(input[key], step[key])) {
        (set as Record<string, unknown>)[key] = input[key];
        changed.push(key);
      }
    }
    // A fingerprint describes the element of the selector it was taken for: another selector
    // without its own fingerprint forgets it (issue 40).
    if (
      changed.includes('targetSelector') &&
      input.targetFingerprint === undefined &&
      step.targetFingerprint !== null
    ) {
      set.targetFingerprint = null;
      changed.push('targetFingerprint');
    }
    const from = step.order;
    const target =
      input.order === undefined
        ? from
        : Math.min(input.order, (await countSteps(tx, ctx.tenantId, flowId)) - 1);
    if (target !== from) changed.push('order');
    if (changed.length === 0) return toStep(step);
    await touchFlow(tx, ctx, flowId);
    // The steps between the old and the new place close up (orders are integers).
    if (target > from) await shiftSteps(tx, ctx.tenantId, flowId, { from: from + 1, to: target }, -1);
    else if (target < from) await shiftSteps(tx, ctx.tenantId, flowId, { from: target, to: from - 1 }, 1);
    set.order = target;
    const row = (await updateStepRow(tx, ctx.tenantId, flowId, step.id, set))!;
    await auditSteps(ctx, tx, flowId, 'step_updated', { stepId: step.id, fields: changed });
    return toStep(row);
  });
}

/** Hard delete; the steps after it move up one. */
export async function deleteStep(ctx: ServiceCtx, flowId: string, stepId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await touchFlow(tx, ctx, flowId);
    const gone = await deleteStepRow(tx, ctx.tenantId, flowId, stepId);
    if (!gone) throw stepMissing();
    await shiftSteps(tx, ctx.tenantId, flowId, { from: gone.order + 1 }, -1);
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
    await setStepOrders(tx, ctx.tenantId, flowId, stepIds, ctx.now);
    await auditSteps(ctx, tx, flowId, 'steps_reordered', { stepIds });
    return stepIds.map((id, i) => toStep({ ...byId.get(id)!, order: i, updatedAt: ctx.now }));
  });
}
