import type { Executor, Transaction } from '../../db/client.js';
import { evaluateRules } from '../../engine/rules.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { idParams } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import type { ReferenceRegistry } from '../../platform/references.js';
import { assertReference } from '../../platform/references-check.js';
import { sameJson } from '../../platform/same-json.js';
import { transitionTable } from '../../platform/state-machine.js';
import { recordChange, type VersionedKind } from '../versions/index.js';
import {
  audienceResponse,
  type CreateAudienceInput,
  type EvaluationContext,
  type UpdateAudienceInput,
} from './schemas.js';
import {
  type AudienceRow,
  findAudience,
  insertAudience,
  listAudiencesPage,
  updateAudienceRow,
} from './store.js';

/**
 * An audience is ACTIVE until soft-deleted. Reads (and so delete) only see ACTIVE ones, so
 * deleting a deleted audience is a 404; restoring an ACTIVE one is the 409.
 */
const audienceLifecycle = transitionTable<'ACTIVE' | 'DELETED', 'restore'>({
  restore: { from: ['DELETED'], to: 'ACTIVE' },
});

const stateOf = (row: { deletedAt: Date | null }) => (row.deletedAt ? 'DELETED' : 'ACTIVE');

/** `findAudience`, or 404. */
async function mustFind(
  exec: Executor,
  tenantId: string,
  id: string,
  opts?: Parameters<typeof findAudience>[3],
): Promise<AudienceRow> {
  const row = await findAudience(exec, tenantId, id, opts);
  if (!row) throw notFound('Audience');
  return row;
}

export const listAudiences = (ctx: ServiceCtx, query: PageRequest & { search?: string | undefined }) =>
  listAudiencesPage(ctx.db, ctx.tenantId, query, query);

export const getAudience = (ctx: ServiceCtx, id: string) => mustFind(ctx.db, ctx.tenantId, id);

export async function createAudience(ctx: ServiceCtx, input: CreateAudienceInput) {
  return ctx.db.transaction(async (tx) => {
    const row = await insertAudience(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      name: input.name,
      description: input.description ?? null,
      ruleTree: input.ruleTree,
    });
    const version = await versionOf(tx, ctx, row);
    await audit(ctx, tx, {
      action: 'AUDIENCE_CREATED',
      entityType: 'audience',
      entityId: row.id,
      metadata: { name: row.name, version },
    });
    return row;
  });
}

// ---- versions: an audience has no draft, every change is a version, live at once ----------------

const audienceSnapshot = (row: Pick<AudienceRow, 'name' | 'description' | 'ruleTree'>) => ({
  name: row.name,
  description: row.description,
  ruleTree: row.ruleTree,
});

/** Records the audience as it now is as its next version (none when it equals the last); the version. */
const versionOf = (tx: Executor, ctx: ServiceCtx, row: AudienceRow) =>
  recordChange(tx, { tenantId: ctx.tenantId, itemType: 'audience', itemId: row.id }, audienceSnapshot(row), {
    actorId: ctx.actorId,
    now: ctx.now,
  });

/** `/api/audiences/:id/versions…`: restoring applies the version at once, as a new one. */
export const audienceVersions: VersionedKind = {
  itemType: 'audience',
  path: '/api/audiences/:id',
  params: idParams,
  tags: ['audiences'],
  entityType: 'audience',
  auditPrefix: 'AUDIENCE',
  find: async (exec, ctx, params, opts) => (await mustFind(exec, ctx.tenantId, params.id, opts)).id,
  async restore(tx: Transaction, ctx: ServiceCtx, id: string, snapshot: unknown) {
    const s = snapshot as ReturnType<typeof audienceSnapshot>;
    const row = await updateAudienceRow(tx, ctx.tenantId, id, { ...s, updatedAt: ctx.now });
    await versionOf(tx, ctx, row!);
  },
  read: (exec, ctx, id) => mustFind(exec, ctx.tenantId, id),
  response: audienceResponse,
};

/** PATCH: only fields whose value differs are written and audited; an empty change is a no-op read. */
export async function updateAudience(ctx: ServiceCtx, id: string, input: UpdateAudienceInput) {
  return ctx.db.transaction(async (tx) => {
    const current = await mustFind(tx, ctx.tenantId, id, { lock: true });
    const changes: Partial<Pick<AudienceRow, 'name' | 'description' | 'ruleTree'>> = {};
    if (input.name !== undefined && input.name !== current.name) changes.name = input.name;
    if (input.description !== undefined && input.description !== current.description) {
      changes.description = input.description;
    }
    if (input.ruleTree !== undefined && !sameJson(input.ruleTree, current.ruleTree)) {
      changes.ruleTree = input.ruleTree;
    }
    const changedFields = Object.keys(changes);
    if (changedFields.length === 0) return current;
    const row = await updateAudienceRow(tx, ctx.tenantId, current.id, { ...changes, updatedAt: ctx.now });
    const version = await versionOf(tx, ctx, row!);
    await audit(ctx, tx, {
      action: 'AUDIENCE_UPDATED',
      entityType: 'audience',
      entityId: current.id,
      metadata: { changedFields, version },
    });
    return row!;
  });
}

/**
 * Soft delete, refused with 409 AUDIENCE_IN_USE (details: the referrers) while any module's
 * finder reports a non-archived record pointing at it. The row lock serialises concurrent
 * deletes and restores of the same audience.
 */
export async function deleteAudience(
  ctx: ServiceCtx,
  id: string,
  references: Pick<ReferenceRegistry, 'findReferrers'>,
) {
  return ctx.db.transaction(async (tx) => {
    const current = await mustFind(tx, ctx.tenantId, id, { lock: true });
    const referrers = await references.findReferrers(tx, 'audience', ctx.tenantId, current.id);
    if (referrers.length > 0) {
      throw new AppError(
        'AUDIENCE_IN_USE',
        `Audience is used by ${referrers.length} record${referrers.length === 1 ? '' : 's'}`,
        referrers,
      );
    }
    const row = await updateAudienceRow(tx, ctx.tenantId, current.id, {
      deletedAt: ctx.now,
      updatedAt: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'AUDIENCE_DELETED',
      entityType: 'audience',
      entityId: current.id,
      metadata: { name: current.name },
    });
    return row!;
  });
}

export async function restoreAudience(ctx: ServiceCtx, id: string) {
  return ctx.db.transaction(async (tx) => {
    const found = await mustFind(tx, ctx.tenantId, id, { lock: true, includeDeleted: true });
    audienceLifecycle.apply(stateOf(found), 'restore');
    const row = await updateAudienceRow(
      tx,
      ctx.tenantId,
      found.id,
      { deletedAt: null, updatedAt: ctx.now },
      { includeDeleted: true },
    );
    await audit(ctx, tx, {
      action: 'AUDIENCE_UPDATED',
      entityType: 'audience',
      entityId: found.id,
      metadata: { restored: true },
    });
    return row!;
  });
}

/** Dry run of a live audience against a context supplied by the dashboard. */
export async function evaluateAudience(ctx: ServiceCtx, id: string, context: EvaluationContext) {
  const { id: audienceId, ruleTree } = await mustFind(ctx.db, ctx.tenantId, id);
  const result = evaluateRules(ruleTree, context);
  return { ...result, audienceId, context };
}

/** For modules whose records target an audience: 400 at `path` unless it is a live audience of the tenant. */
export async function assertAudienceUsable(
  exec: Executor,
  tenantId: string,
  audienceId: string,
  path = 'audienceId',
) {
  await assertReference(audienceId, path, 'Audience', async (id) =>
    Boolean(await findAudience(exec, tenantId, id)),
  );
}
