import type { ServiceCtx } from '../../platform/context.js';
import { contentNotFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { FlowStepType, FlowTemplate, FlowTrigger, InlineStep } from './schemas.js';
import type { FlowRow, NewStepRow, StepRow } from './store.js';

/** Flows and steps as the API shows them, from their rows; the errors that name them. */

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
export const stepValues = (
  ctx: ServiceCtx,
  flowId: string,
  order: number,
  step: StepInput & { targetFingerprint?: Record<string, unknown> | null },
): NewStepRow => ({
  id: newId(),
  tenantId: ctx.tenantId,
  flowId,
  order,
  ...stepFields(step),
  targetFingerprint: step.targetFingerprint ?? null,
  createdAt: ctx.now,
  updatedAt: ctx.now,
});
