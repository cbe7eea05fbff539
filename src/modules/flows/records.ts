import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { flowSteps, flows } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import { contentNotFound } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { FlowStepType, FlowTemplate, FlowTrigger, InlineStep } from './schemas.js';

export type FlowRow = typeof flows.$inferSelect;
export type StepRow = typeof flowSteps.$inferSelect;

export const toStep = (row: StepRow) => ({ ...row, type: row.type as FlowStepType });
export type FlowStepRecord = ReturnType<typeof toStep>;

export const toFlowRecord = (row: FlowRow, steps: StepRow[]) => ({
  ...row,
  template: row.template as FlowTemplate,
  trigger: row.trigger as FlowTrigger | null,
  steps: steps.map(toStep),
});
export type FlowRecord = ReturnType<typeof toFlowRecord>;

export const flowMissing = () => contentNotFound('Flow');
export const stepMissing = () => contentNotFound('Flow step');

/** A step as sent (inline, added or stored). */
type StepInput = Pick<InlineStep, 'targetSelector' | 'content' | 'settings'> & { type: string };

/** The fields of a step as stored, defaults applied (what "the same step" compares). */
export const stepFields = (step: StepInput) => ({
  type: step.type,
  targetSelector: step.targetSelector ?? null,
  content: step.content ?? {},
  settings: step.settings ?? {},
});

/** A new step row at `order`. */
export const stepValues = (ctx: ServiceCtx, flowId: string, order: number, step: StepInput) => ({
  id: newId(),
  tenantId: ctx.tenantId,
  flowId,
  order,
  ...stepFields(step),
  createdAt: ctx.now,
  updatedAt: ctx.now,
});

/** The flow row of the tenant, or null; a malformed id simply matches nothing. */
export async function findFlow(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<FlowRow | null> {
  if (!isUuid(id)) return null;
  const query = exec
    .select()
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), eq(flows.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row ?? null;
}

/** One step of the flow, or null; a malformed id simply matches nothing. */
export async function findStep(
  exec: Executor,
  tenantId: string,
  flowId: string,
  stepId: string,
): Promise<StepRow | null> {
  if (!isUuid(stepId)) return null;
  const [row] = await exec
    .select()
    .from(flowSteps)
    .where(and(eq(flowSteps.tenantId, tenantId), eq(flowSteps.flowId, flowId), eq(flowSteps.id, stepId)))
    .limit(1);
  return row ?? null;
}

export async function loadSteps(exec: Executor, tenantId: string, flowId: string): Promise<StepRow[]> {
  return exec
    .select()
    .from(flowSteps)
    .where(and(eq(flowSteps.tenantId, tenantId), eq(flowSteps.flowId, flowId)))
    .orderBy(asc(flowSteps.order));
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

/** The full record (flow and its ordered steps) of a row already read. */
export async function withSteps(exec: Executor, row: FlowRow): Promise<FlowRecord> {
  return toFlowRecord(row, await loadSteps(exec, row.tenantId, row.id));
}
