import type { Executor } from '../../db/client.js';
import { recordAudits } from '../../platform/audit.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { Referrer } from '../../platform/references.js';
import { sameJson } from '../../platform/same-json.js';
import { assertAudienceUsable } from '../audiences/index.js';
import { assertFlowUsable } from '../flows/index.js';
import { assertFeatureEnabled, assertPlanAllows } from '../pricing/index.js';
import {
  type ExperimentRecord,
  type ExperimentRow,
  experimentOr404,
  loadVariants,
  toExperimentRecord,
  type VariantRow,
  withVariants,
} from './records.js';
import {
  basisPointsOf,
  type CreateExperimentInput,
  FULL_SPLIT,
  type ListExperimentsQuery,
  type UpdateExperimentInput,
  type VariantInput,
} from './schemas.js';
import {
  deleteVariants,
  insertExperiment,
  insertVariants,
  listExperimentsPage,
  listVariantsOf,
  stopRunningExperimentsServing,
  updateExperiment as updateExperimentRow,
} from './store.js';
import { EXPERIMENT_AUDIT_ACTION, type ExperimentAction, experimentLifecycle } from './transitions.js';

const ENTITY = 'experiment';

// ---- reads -----------------------------------------------------------------------------------

export async function listExperiments(ctx: ServiceCtx, query: ListExperimentsQuery) {
  const page = await listExperimentsPage(ctx.db, ctx.tenantId, query);
  const variants = await listVariantsOf(
    ctx.db,
    ctx.tenantId,
    page.data.map((r) => r.row.id),
  );
  return {
    ...page,
    data: page.data.map(({ row, assignments }) => ({
      ...toExperimentRecord(row, variants.get(row.id) ?? []),
      _count: { assignments },
    })),
  };
}

export async function getExperiment(ctx: ServiceCtx, id: string): Promise<ExperimentRecord> {
  return withVariants(ctx.db, await experimentOr404(ctx.db, ctx.tenantId, id));
}

// ---- create and update -----------------------------------------------------------------------

/** Every variant's flow is a flow of the tenant (400 at `variants.<i>.flowId` otherwise). */
async function assertVariantFlows(tx: Executor, tenantId: string, variants: VariantInput[]) {
  for (const [i, v] of variants.entries()) {
    if (v.flowId) await assertFlowUsable(tx, tenantId, v.flowId, `variants.${i}.flowId`);
  }
}

/** Variant rows of `variants` in order; an `id` of a variant in `keep` keeps that id. */
function variantRows(
  ctx: ServiceCtx,
  experimentId: string,
  variants: VariantInput[],
  keep: ReadonlyMap<string, VariantRow>,
) {
  return variants.map((v, position) => {
    const kept = v.id ? keep.get(v.id.toLowerCase()) : undefined;
    return {
      id: kept?.id ?? newId(),
      tenantId: ctx.tenantId,
      experimentId,
      position,
      name: v.name,
      splitBasisPoints: basisPointsOf(v.splitPercentage),
      flowId: v.flowId ?? null,
      config: v.config ?? {},
      createdAt: kept?.createdAt ?? ctx.now,
      updatedAt: ctx.now,
    };
  });
}

/** The fields of variants that make them "the same" (ids aside unless kept). */
const variantShape = (v: Pick<VariantRow, 'id' | 'name' | 'splitBasisPoints' | 'flowId' | 'config'>) => ({
  id: v.id,
  name: v.name,
  splitBasisPoints: v.splitBasisPoints,
  flowId: v.flowId,
  config: v.config,
});

export async function createExperiment(
  ctx: ServiceCtx,
  input: CreateExperimentInput,
): Promise<ExperimentRecord> {
  return ctx.db.transaction(async (tx) => {
    // The `experiments` feature gates creation, and the plan's experiment limit counts non-archived ones.
    await assertPlanAllows(tx, ctx.tenantId, 'experiments', ctx.now);
    if (input.audienceId) await assertAudienceUsable(tx, ctx.tenantId, input.audienceId, 'audienceId');
    await assertVariantFlows(tx, ctx.tenantId, input.variants);
    const id = newId();
    const row = await insertExperiment(tx, {
      id,
      tenantId: ctx.tenantId,
      name: input.name,
      description: input.description ?? null,
      type: input.type,
      status: 'draft',
      audienceId: input.audienceId ?? null,
      // The experiment's own id: unique, so two experiments bucket a user independently.
      seed: id,
      endDate: input.endDate ?? null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    });
    const variants = variantRows(ctx, id, input.variants, new Map());
    await insertVariants(tx, variants);
    await audit(ctx, tx, {
      action: 'EXPERIMENT_CREATED',
      entityType: ENTITY,
      entityId: id,
      metadata: { name: input.name, variants: variants.length },
    });
    return toExperimentRecord(row, variants);
  });
}

const UPDATABLE = ['name', 'description', 'type', 'audienceId', 'endDate'] as const;

/**
 * PATCH, in draft only (409 INVALID_STATE_TRANSITION otherwise). `variants` replaces the list:
 * a variant sent with the id of one of the experiment's variants keeps that id. Only fields
 * whose value differs are written and audited; a PATCH that changes nothing writes nothing.
 */
export async function updateExperiment(
  ctx: ServiceCtx,
  id: string,
  input: UpdateExperimentInput,
): Promise<ExperimentRecord> {
  return ctx.db.transaction(async (tx) => {
    const row = await experimentOr404(tx, ctx.tenantId, id, { lock: true });
    experimentLifecycle.apply(row.status, 'update');
    const stored = await loadVariants(tx, ctx.tenantId, row.id);

    const set: Partial<ExperimentRow> = {};
    const changed: string[] = [];
    for (const key of UPDATABLE) {
      if (input[key] !== undefined && !sameJson(input[key], row[key])) {
        (set as Record<string, unknown>)[key] = input[key];
        changed.push(key);
      }
    }
    let variants: ReturnType<typeof variantRows> | null = null;
    if (input.variants !== undefined) {
      const next = variantRows(ctx, row.id, input.variants, new Map(stored.map((v) => [v.id, v])));
      if (!sameJson(next.map(variantShape), stored.map(variantShape))) {
        variants = next;
        changed.push('variants');
      }
    }
    if (changed.length === 0) return toExperimentRecord(row, stored);

    if (set.audienceId) await assertAudienceUsable(tx, ctx.tenantId, set.audienceId, 'audienceId');
    if (variants) await assertVariantFlows(tx, ctx.tenantId, input.variants!);
    const updated = await updateExperimentRow(tx, ctx.tenantId, row.id, { ...set, updatedAt: ctx.now });
    if (variants) {
      // A draft has no assignments: the list is simply rewritten (kept ids reinserted).
      await deleteVariants(tx, ctx.tenantId, row.id);
      await insertVariants(tx, variants);
    }
    await audit(ctx, tx, {
      action: 'EXPERIMENT_UPDATED',
      entityType: ENTITY,
      entityId: row.id,
      metadata: { changed },
    });
    return toExperimentRecord(updated, variants ?? stored);
  });
}

// ---- lifecycle -------------------------------------------------------------------------------

/** What `start` needs besides the state: a plan with experiments, ≥ 2 variants summing to 100, an end ahead. */
async function assertStartable(tx: Executor, ctx: ServiceCtx, row: ExperimentRow, variants: VariantRow[]) {
  await assertFeatureEnabled(tx, ctx.tenantId, 'experiments', ctx.now);
  if (variants.length < 2) {
    throw validationError(
      [
        {
          path: 'variants',
          message: `an experiment needs at least 2 variants to start (it has ${variants.length})`,
        },
      ],
      'Experiment cannot start',
    );
  }
  const total = variants.reduce((s, v) => s + v.splitBasisPoints, 0);
  if (total !== FULL_SPLIT) {
    throw validationError([
      { path: 'variants', message: `splitPercentage values must sum to 100 (they sum to ${total / 100})` },
    ]);
  }
  if (row.endDate && row.endDate.getTime() <= ctx.now.getTime()) {
    throw validationError([
      { path: 'endDate', message: 'endDate has passed; an experiment that ended cannot start' },
    ]);
  }
}

/**
 * Runs one lifecycle action under a row lock: the table decides (409 otherwise); a move to the
 * state the experiment is already in (archiving an archived one) changes nothing.
 */
async function transition(
  ctx: ServiceCtx,
  id: string,
  action: Extract<ExperimentAction, 'start' | 'stop' | 'delete'>,
): Promise<ExperimentRecord> {
  return ctx.db.transaction(async (tx) => {
    const row = await experimentOr404(tx, ctx.tenantId, id, { lock: true });
    const to = experimentLifecycle.apply(row.status, action);
    const variants = await loadVariants(tx, ctx.tenantId, row.id);
    if (to === row.status) return toExperimentRecord(row, variants);
    if (action === 'start') await assertStartable(tx, ctx, row, variants);
    const updated = await updateExperimentRow(tx, ctx.tenantId, row.id, {
      status: to,
      updatedAt: ctx.now,
      ...(action === 'start' && !row.startDate ? { startDate: ctx.now } : {}),
      ...(to === 'archived' ? { archivedAt: ctx.now } : {}),
    });
    await audit(ctx, tx, {
      action: EXPERIMENT_AUDIT_ACTION[to],
      entityType: ENTITY,
      entityId: row.id,
      metadata: { from: row.status, to, action },
    });
    return toExperimentRecord(updated, variants);
  });
}

export const startExperiment = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'start');
export const stopExperiment = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'stop');
export const archiveExperiment = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'delete');

// ---- references ------------------------------------------------------------------------------

/**
 * A flow deleted with `disableDependents=true`: running experiments with a variant serving it
 * are stopped (in the caller's transaction), each audited like a stop by hand.
 */
export async function stopExperimentsForFlow(
  exec: Executor,
  tenantId: string,
  flowId: string,
  now: Date,
): Promise<Referrer[]> {
  if (!isUuid(flowId)) return [];
  const stopped = await stopRunningExperimentsServing(exec, tenantId, flowId, now);
  await recordAudits(
    exec,
    stopped.map((e) => ({
      tenantId,
      action: 'EXPERIMENT_STOPPED',
      entityType: ENTITY,
      entityId: e.id,
      metadata: { from: 'running', to: 'stopped', flowDeleted: flowId },
    })),
  );
  return stopped.map((e): Referrer => ({ type: 'experiment', id: e.id, name: e.name }));
}
