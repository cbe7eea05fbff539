import type { z } from 'zod';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { sameJson } from '../../platform/same-json.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import type { ContentAction } from './lifecycle.js';
import { changeState, checkAudience, findRow, type RecordKind } from './record-service.js';
import type { NpsSurveyRecord } from './records.js';
import type { createNpsSurveyBody, patchNpsSurveyBody } from './schemas.js';
import { countNpsScores, insertNpsSurvey, updateNpsSurveyRow } from './store/nps-surveys.js';
import {
  listNpsSurveysPage,
  NPS_SURVEY_RECORDS,
  type NpsSurveyRow,
  type RecordListQuery,
} from './store/records.js';
import { listNpsResponsesPage } from './store/responses.js';

const NPS_SURVEYS: RecordKind<NpsSurveyRow> = {
  records: NPS_SURVEY_RECORDS,
  label: 'NPS survey',
  entityType: 'nps_survey',
};

export type CreateNpsSurveyInput = z.output<typeof createNpsSurveyBody>;
export type NpsSurveyInput = z.output<typeof patchNpsSurveyBody>;

export async function createNpsSurvey(
  ctx: ServiceCtx,
  input: CreateNpsSurveyInput,
): Promise<NpsSurveyRecord> {
  return ctx.db.transaction(async (tx) => {
    // NPS surveys are surveys: a plan feature (PLAN_FEATURE_UNAVAILABLE when the plan lacks it).
    await assertFeatureEnabled(tx, ctx.tenantId, 'surveys');
    await checkAudience(tx, ctx, input.audienceId);
    const row = await insertNpsSurvey(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      name: input.name,
      siteId: input.siteId,
      status: 'DRAFT',
      audienceId: input.audienceId ?? null,
      triggerConfig: input.triggerConfig ?? null,
      question: input.question,
      followUpQuestion: input.followUpQuestion ?? null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'CONTENT_CREATED',
      entityType: NPS_SURVEYS.entityType,
      entityId: row.id,
      metadata: { name: row.name, status: row.status },
    });
    return row;
  });
}

export const listNpsSurveys = (ctx: ServiceCtx, query: RecordListQuery) =>
  listNpsSurveysPage(ctx.db, ctx.tenantId, query);

export const getNpsSurvey = (ctx: ServiceCtx, id: string): Promise<NpsSurveyRecord> =>
  findRow(ctx.db, ctx, NPS_SURVEYS, id);

const UPDATABLE = ['name', 'siteId', 'question', 'followUpQuestion', 'audienceId', 'triggerConfig'] as const;

/**
 * Partial update; never changes the status. A PATCH whose every field equals the stored value
 * (or an empty one) answers the record as it is: no write, no audit row, updatedAt unchanged.
 */
export async function updateNpsSurvey(
  ctx: ServiceCtx,
  id: string,
  patch: NpsSurveyInput,
): Promise<NpsSurveyRecord> {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, NPS_SURVEYS, id, { lock: true });
    const changes: Partial<NpsSurveyRow> = {};
    for (const key of UPDATABLE) {
      const value = patch[key];
      if (value !== undefined && !sameJson(value, row[key])) {
        (changes as Record<string, unknown>)[key] = value;
      }
    }
    const changed = Object.keys(changes);
    if (changed.length === 0) return row;
    await checkAudience(tx, ctx, patch.audienceId);
    const updated = await updateNpsSurveyRow(tx, ctx.tenantId, row.id, { ...changes, updatedAt: ctx.now });
    await audit(ctx, tx, {
      action: 'CONTENT_UPDATED',
      entityType: NPS_SURVEYS.entityType,
      entityId: row.id,
      metadata: { changes: changed },
    });
    return updated!;
  });
}

/** publish, unpublish, archive (DELETE) and restore: the content lifecycle table. */
export const changeNpsSurveyState = (
  ctx: ServiceCtx,
  id: string,
  action: ContentAction,
): Promise<NpsSurveyRecord> => changeState(ctx, NPS_SURVEYS, id, action);

/** Responses to one NPS survey of the tenant (any status), newest first; 404 when it is not the tenant's. */
export async function listNpsResponses(ctx: ServiceCtx, id: string, page: PageRequest) {
  const survey = await findRow(ctx.db, ctx, NPS_SURVEYS, id);
  return listNpsResponsesPage(ctx.db, ctx.tenantId, survey.id, page);
}

/** One decimal, half away from zero. */
const round1 = (x: number) => Math.sign(x) * (Math.round(Math.abs(x) * 10 + 1e-9) / 10);

/** Promoters (9-10), passives (7-8), detractors (0-6) and NPS = % promoters − % detractors. */
export async function getNpsResults(
  ctx: ServiceCtx,
  id: string,
  range: { startDate?: Date | undefined; endDate?: Date | undefined },
) {
  const survey = await findRow(ctx.db, ctx, NPS_SURVEYS, id);
  const { total, promoters, passives, detractors } = await countNpsScores(
    ctx.db,
    ctx.tenantId,
    survey.id,
    range,
  );
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
