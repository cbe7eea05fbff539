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
/** With its live version and whether the working copy differs from it, where they were read. */
export type FlowRecord = ReturnType<typeof toFlowRecord> & {
  version?: number | null;
  hasUnpublishedChanges?: boolean;
};

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

// ---- versions --------------------------------------------------------------------------------

/** A flow's versioned fields (its working copy, or a published version): everything but its lifecycle. */
export const flowSnapshot = (row: FlowRow, steps: StepRow[]) => ({
  name: row.name,
  description: row.description,
  siteId: row.siteId,
  template: row.template,
  audienceId: row.audienceId,
  settings: row.settings,
  trigger: row.trigger,
  steps: steps.map((s) => ({ id: s.id, ...stepFields(s) })),
});
export type FlowSnapshot = ReturnType<typeof flowSnapshot>;

/**
 * The flow as a published version shows it: the version's fields and steps over the row's
 * lifecycle (status, schedule, dates) and any column a version does not hold.
 */
export function publishedFlow(
  row: FlowRow,
  live: { version: number; publishedAt: Date; snapshot: unknown },
  learnedFingerprints: ReadonlyMap<string, StepRow['targetFingerprint']> = new Map(),
) {
  const { steps, ...fields } = live.snapshot as FlowSnapshot;
  const at = live.publishedAt;
  return {
    ...toFlowRecord(
      { ...row, ...fields },
      steps.map((s, order) => ({
        ...s,
        // A fingerprint is learned from lookups (modules/targeting), not authored: the working
        // step's current one serves whichever version is live.
        targetFingerprint: learnedFingerprints.get(s.id) ?? null,
        tenantId: row.tenantId,
        flowId: row.id,
        order,
        createdAt: at,
        updatedAt: at,
      })),
    ),
    version: live.version,
  };
}
