import { and, asc, count, desc, eq, gte, ilike, lte, ne, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { npsResponses, npsSurveys } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { contentNotFound } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { containsPattern, type PageRequest, pageOffset } from '../../platform/pagination.js';
import { sameJson } from '../../platform/same-json.js';
import { assertAudienceUsable } from '../audiences/lookup.js';
import { assertFeatureEnabled } from '../pricing/enforce.js';
import { type ContentAction, contentLifecycle, stateColumns, transitionAudit } from './lifecycle.js';
import { type NpsSurveyRow, toNpsRecord } from './records.js';
import type { ContentListQuery } from './service.js';

const ENTITY = 'nps_survey';

export interface NpsSurveyInput {
  name?: string | undefined;
  siteId?: string | undefined;
  question?: string | undefined;
  followUpQuestion?: string | null | undefined;
  audienceId?: string | null | undefined;
  triggerConfig?: Record<string, unknown> | null | undefined;
}

async function checkAudience(exec: Executor, ctx: ServiceCtx, input: NpsSurveyInput) {
  if (typeof input.audienceId === 'string') {
    await assertAudienceUsable(exec, ctx.tenantId, input.audienceId, 'audienceId');
  }
}

export async function createNpsSurvey(
  ctx: ServiceCtx,
  input: Required<Pick<NpsSurveyInput, 'name' | 'siteId' | 'question'>> & NpsSurveyInput,
  now: Date,
) {
  return ctx.db.transaction(async (tx) => {
    // NPS surveys are surveys: a plan feature (PLAN_FEATURE_UNAVAILABLE when the plan lacks it).
    await assertFeatureEnabled(tx, ctx.tenantId, 'surveys');
    await checkAudience(tx, ctx, input);
    const [row] = await tx
      .insert(npsSurveys)
      .values({
        id: newId(),
        tenantId: ctx.tenantId,
        name: input.name,
        siteId: input.siteId,
        status: 'DRAFT',
        audienceId: input.audienceId ?? null,
        triggerConfig: (input.triggerConfig ?? null) as NpsSurveyRow['triggerConfig'],
        question: input.question,
        followUpQuestion: input.followUpQuestion ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(ctx, tx, {
      action: 'CONTENT_CREATED',
      entityType: ENTITY,
      entityId: row!.id,
      metadata: { name: row!.name, status: row!.status },
    });
    return toNpsRecord(row!);
  });
}

const SORT_COLUMNS = {
  // Case-insensitive, the same on every database collation.
  name: sql`lower(${npsSurveys.name})`,
  status: npsSurveys.status,
  createdAt: npsSurveys.createdAt,
  updatedAt: npsSurveys.updatedAt,
} as const;

export async function listNpsSurveys(ctx: ServiceCtx, query: ContentListQuery) {
  const where: SQL[] = [eq(npsSurveys.tenantId, ctx.tenantId)];
  where.push(query.status ? eq(npsSurveys.status, query.status) : ne(npsSurveys.status, 'ARCHIVED'));
  if (query.search) where.push(ilike(npsSurveys.name, containsPattern(query.search)));
  if (query.siteId) where.push(eq(npsSurveys.siteId, query.siteId));
  const dir = query.sortDirection === 'asc' ? asc : desc;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(npsSurveys)
      .where(and(...where))
      .orderBy(dir(SORT_COLUMNS[query.sortBy]), dir(npsSurveys.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db
      .select({ n: count() })
      .from(npsSurveys)
      .where(and(...where)),
  ]);
  return { rows: rows.map(toNpsRecord), total: total?.n ?? 0 };
}

async function findRow(exec: Executor, ctx: ServiceCtx, id: string, lock: boolean) {
  if (!isUuid(id)) throw contentNotFound('NPS survey');
  const q = exec
    .select()
    .from(npsSurveys)
    .where(and(eq(npsSurveys.tenantId, ctx.tenantId), eq(npsSurveys.id, id)))
    .limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw contentNotFound('NPS survey');
  return row;
}

export async function getNpsSurvey(ctx: ServiceCtx, id: string) {
  return toNpsRecord(await findRow(ctx.db, ctx, id, false));
}

const UPDATABLE = ['name', 'siteId', 'question', 'followUpQuestion', 'audienceId', 'triggerConfig'] as const;

/**
 * Partial update; never changes the status. A PATCH whose every field equals the stored value
 * (or an empty one) answers the record as it is: no write, no audit row, updatedAt unchanged.
 */
export async function updateNpsSurvey(ctx: ServiceCtx, id: string, patch: NpsSurveyInput, now: Date) {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, id, true);
    const changes: Partial<NpsSurveyRow> = {};
    for (const key of UPDATABLE) {
      const value = patch[key];
      if (value !== undefined && !sameJson(value, row[key])) {
        (changes as Record<string, unknown>)[key] = value;
      }
    }
    const changed = Object.keys(changes);
    if (changed.length === 0) return toNpsRecord(row);
    await checkAudience(tx, ctx, patch);
    const [updated] = await tx
      .update(npsSurveys)
      .set({ ...changes, updatedAt: now })
      .where(and(eq(npsSurveys.tenantId, ctx.tenantId), eq(npsSurveys.id, row.id)))
      .returning();
    await audit(ctx, tx, {
      action: 'CONTENT_UPDATED',
      entityType: ENTITY,
      entityId: row.id,
      metadata: { changes: changed },
    });
    return toNpsRecord(updated!);
  });
}

/** publish, unpublish, archive (DELETE) and restore: the content lifecycle table. */
export async function changeNpsSurveyState(ctx: ServiceCtx, id: string, action: ContentAction, now: Date) {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, id, true);
    const to = contentLifecycle.apply(row.status, action);
    if (to === row.status) return toNpsRecord(row);
    const [updated] = await tx
      .update(npsSurveys)
      .set(stateColumns(row.status, to, now))
      .where(and(eq(npsSurveys.tenantId, ctx.tenantId), eq(npsSurveys.id, row.id)))
      .returning();
    await audit(ctx, tx, {
      ...transitionAudit(row.status, to, action),
      entityType: ENTITY,
      entityId: row.id,
    });
    return toNpsRecord(updated!);
  });
}

const responseColumns = {
  id: npsResponses.id,
  npsSurveyId: npsResponses.npsSurveyId,
  endUserId: npsResponses.endUserId,
  score: npsResponses.score,
  comment: npsResponses.comment,
  submittedAt: npsResponses.submittedAt,
  tenantId: npsResponses.tenantId,
};

export async function listNpsResponses(ctx: ServiceCtx, id: string, query: PageRequest) {
  const survey = await findRow(ctx.db, ctx, id, false);
  const where = and(eq(npsResponses.tenantId, ctx.tenantId), eq(npsResponses.npsSurveyId, survey.id));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(responseColumns)
      .from(npsResponses)
      .where(where)
      .orderBy(desc(npsResponses.submittedAt), desc(npsResponses.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db.select({ n: count() }).from(npsResponses).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** One decimal, half away from zero. */
const round1 = (x: number) => Math.sign(x) * (Math.round(Math.abs(x) * 10 + 1e-9) / 10);

/** Promoters (9-10), passives (7-8), detractors (0-6) and NPS = % promoters − % detractors. */
export async function getNpsResults(
  ctx: ServiceCtx,
  id: string,
  range: { startDate?: Date | undefined; endDate?: Date | undefined },
) {
  const survey = await findRow(ctx.db, ctx, id, false);
  const where: SQL[] = [eq(npsResponses.tenantId, ctx.tenantId), eq(npsResponses.npsSurveyId, survey.id)];
  if (range.startDate) where.push(gte(npsResponses.submittedAt, range.startDate));
  if (range.endDate) where.push(lte(npsResponses.submittedAt, range.endDate));
  const [agg] = await ctx.db
    .select({
      total: count(),
      promoters: sql<number>`count(*) filter (where ${npsResponses.score} >= 9)`.mapWith(Number),
      passives: sql<number>`count(*) filter (where ${npsResponses.score} between 7 and 8)`.mapWith(Number),
      detractors: sql<number>`count(*) filter (where ${npsResponses.score} <= 6)`.mapWith(Number),
    })
    .from(npsResponses)
    .where(and(...where));
  const total = agg?.total ?? 0;
  const promoters = agg?.promoters ?? 0;
  const passives = agg?.passives ?? 0;
  const detractors = agg?.detractors ?? 0;
  const pct = (n: number) => (total === 0 ? 0 : (n * 100) / total);
  return {
    npsSurveyId: survey.id,
    totalResponses: total,
    promoters,
    passives,
    detractors,
    promoterPercentage: round1(pct(promoters)),
    passivePercentage: round1(pct(passives)),
    detractorPercentage: round1(pct(detractors)),
    npsScore: round1(pct(promoters) - pct(detractors)) || 0,
    dateRange: { startDate: range.startDate ?? null, endDate: range.endDate ?? null },
  };
}
