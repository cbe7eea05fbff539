import { and, count, desc, eq, ilike, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { audiences } from '../../db/schema/index.js';
import { evaluateRules, type RuleNode } from '../../engine/rules.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { containsPattern, type PageRequest, pageOffset } from '../../platform/pagination.js';
import type { ReferenceRegistry } from '../../platform/references.js';
import { sameJson } from '../../platform/same-json.js';
import { transitionTable } from '../../platform/state-machine.js';
import type { CreateAudienceInput, EvaluationContext, UpdateAudienceInput } from './schemas.js';

/**
 * An audience is ACTIVE until soft-deleted. Reads hide DELETED ones, so deleting a deleted
 * audience is a 404 before the table is consulted; restoring an ACTIVE one is the 409.
 */
export const audienceLifecycle = transitionTable<'ACTIVE' | 'DELETED', 'delete' | 'restore'>({
  delete: { from: ['ACTIVE'], to: 'DELETED' },
  restore: { from: ['DELETED'], to: 'ACTIVE' },
});

const stateOf = (row: { deletedAt: Date | null }) => (row.deletedAt ? 'DELETED' : 'ACTIVE');

const columns = {
  id: audiences.id,
  name: audiences.name,
  description: audiences.description,
  ruleTree: audiences.ruleTree,
  tenantId: audiences.tenantId,
  createdAt: audiences.createdAt,
  updatedAt: audiences.updatedAt,
  deletedAt: audiences.deletedAt,
};

interface AudienceRow {
  id: string;
  name: string;
  description: string | null;
  ruleTree: RuleNode;
  tenantId: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** The jsonb column is typed `unknown`; every stored tree passed `ruleTreeSchema` on save. */
const typed = (row: typeof audiences.$inferSelect | undefined) => row as AudienceRow | undefined;

const notFoundError = () => notFound('Audience');

const live = (tenantId: string, id: string) =>
  and(eq(audiences.tenantId, tenantId), eq(audiences.id, id), isNull(audiences.deletedAt));

/** A live audience of the tenant, locked for the rest of `tx` when `lock` is set. */
async function findLive(exec: Executor, tenantId: string, id: string, lock = false) {
  if (!isUuid(id)) throw notFoundError();
  const query = exec.select(columns).from(audiences).where(live(tenantId, id)).limit(1);
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFoundError();
  return typed(row)!;
}

export async function listAudiences(ctx: ServiceCtx, query: PageRequest & { search?: string | undefined }) {
  const where: SQL[] = [eq(audiences.tenantId, ctx.tenantId), isNull(audiences.deletedAt)];
  if (query.search) where.push(ilike(audiences.name, containsPattern(query.search)));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(columns)
      .from(audiences)
      .where(and(...where))
      .orderBy(desc(audiences.createdAt), desc(audiences.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db
      .select({ n: count() })
      .from(audiences)
      .where(and(...where)),
  ]);
  return { rows: rows.map((r) => typed(r)!), total: total?.n ?? 0 };
}

export const getAudience = (ctx: ServiceCtx, id: string) => findLive(ctx.db, ctx.tenantId, id);

export async function createAudience(ctx: ServiceCtx, input: CreateAudienceInput) {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(audiences)
      .values({
        id: newId(),
        tenantId: ctx.tenantId,
        name: input.name,
        description: input.description ?? null,
        ruleTree: input.ruleTree,
      })
      .returning(columns);
    await audit(ctx, tx, {
      action: 'AUDIENCE_CREATED',
      entityType: 'audience',
      entityId: row!.id,
      metadata: { name: row!.name },
    });
    return typed(row)!;
  });
}

/** PATCH: only fields whose value differs are written and audited; an empty change is a no-op read. */
export async function updateAudience(ctx: ServiceCtx, id: string, input: UpdateAudienceInput) {
  return ctx.db.transaction(async (tx) => {
    const current = await findLive(tx, ctx.tenantId, id, true);
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
    const [row] = await tx
      .update(audiences)
      .set({ ...changes, updatedAt: new Date() })
      .where(live(ctx.tenantId, current.id))
      .returning(columns);
    await audit(ctx, tx, {
      action: 'AUDIENCE_UPDATED',
      entityType: 'audience',
      entityId: current.id,
      metadata: { changedFields },
    });
    return typed(row)!;
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
    const current = await findLive(tx, ctx.tenantId, id, true);
    audienceLifecycle.apply(stateOf(current), 'delete');
    const referrers = await references.findReferrers(tx, 'audience', ctx.tenantId, current.id);
    if (referrers.length > 0) {
      throw new AppError(
        'AUDIENCE_IN_USE',
        `Audience is used by ${referrers.length} record${referrers.length === 1 ? '' : 's'}`,
        referrers.map(({ type, id: referrerId, name }) => ({ type, id: referrerId, name })),
      );
    }
    const now = new Date();
    const [row] = await tx
      .update(audiences)
      .set({ deletedAt: now, updatedAt: now })
      .where(live(ctx.tenantId, current.id))
      .returning(columns);
    await audit(ctx, tx, {
      action: 'AUDIENCE_DELETED',
      entityType: 'audience',
      entityId: current.id,
      metadata: { name: current.name },
    });
    return typed(row)!;
  });
}

export async function restoreAudience(ctx: ServiceCtx, id: string) {
  if (!isUuid(id)) throw notFoundError();
  return ctx.db.transaction(async (tx) => {
    const [found] = await tx
      .select(columns)
      .from(audiences)
      .where(and(eq(audiences.tenantId, ctx.tenantId), eq(audiences.id, id)))
      .limit(1)
      .for('update');
    if (!found) throw notFoundError();
    audienceLifecycle.apply(stateOf(found), 'restore');
    const [row] = await tx
      .update(audiences)
      .set({ deletedAt: null, updatedAt: new Date() })
      .where(and(eq(audiences.tenantId, ctx.tenantId), eq(audiences.id, found.id)))
      .returning(columns);
    await audit(ctx, tx, {
      action: 'AUDIENCE_UPDATED',
      entityType: 'audience',
      entityId: found.id,
      metadata: { restored: true },
    });
    return typed(row)!;
  });
}

/** Dry run of a live audience against a context supplied by the dashboard. */
export async function evaluateAudience(ctx: ServiceCtx, id: string, context: EvaluationContext) {
  const { id: audienceId, ruleTree } = await findLive(ctx.db, ctx.tenantId, id);
  const result = evaluateRules(ruleTree, context);
  return { ...result, audienceId, context };
}

/**
 * For SDK delivery: id → rule tree of the tenant's live (non-deleted) audiences, optionally only
 * those among `ids`. Evaluate with `matchesRules(tree, context)` from src/engine/rules.ts.
 */
export async function loadLiveAudiences(
  exec: Executor,
  tenantId: string,
  ids?: readonly string[],
): Promise<Map<string, RuleNode>> {
  const where: SQL[] = [eq(audiences.tenantId, tenantId), isNull(audiences.deletedAt)];
  if (ids) {
    const wanted = [...new Set(ids.filter(isUuid))];
    if (wanted.length === 0) return new Map();
    where.push(inArray(audiences.id, wanted));
  }
  const rows = await exec
    .select({ id: audiences.id, ruleTree: audiences.ruleTree })
    .from(audiences)
    .where(and(...where));
  return new Map(rows.map((r) => [r.id, r.ruleTree as RuleNode]));
}
