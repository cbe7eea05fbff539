import { and, asc, count, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { columnsOf } from '../../../db/raw.js';
import { npsResponses, surveyResponses } from '../../../db/schema/index.js';
import { columnList, fixedStatement, microsIso, runStatement } from '../../../db/statements.js';
import { newId } from '../../../platform/ids.js';
import { listPage, type PageRequest } from '../../../platform/pagination.js';

/** Queries of `survey_responses` and `nps_responses`. */

type SurveyResponseRow = typeof surveyResponses.$inferSelect;
type NpsResponseRow = typeof npsResponses.$inferSelect;

/** What event processing writes of a response: `submittedAt` as the event's ISO timestamp. */
export type NewSurveyResponse = Pick<
  SurveyResponseRow,
  'tenantId' | 'surveyId' | 'endUserId' | 'response' | 'eventId'
> & { submittedAt: string };
export type NewNpsResponse = Pick<
  NpsResponseRow,
  'tenantId' | 'npsSurveyId' | 'endUserId' | 'score' | 'comment' | 'eventId'
> & { submittedAt: string };

/** A page of the survey's responses, newest first. */
export function listSurveyResponsesPage(
  exec: Executor,
  tenantId: string,
  surveyId: string,
  page: PageRequest,
) {
  const where = and(eq(surveyResponses.tenantId, tenantId), eq(surveyResponses.surveyId, surveyId));
  return listPage(
    exec
      .select({
        id: surveyResponses.id,
        surveyId: surveyResponses.surveyId,
        endUserId: surveyResponses.endUserId,
        response: surveyResponses.response,
        submittedAt: surveyResponses.submittedAt,
        tenantId: surveyResponses.tenantId,
      })
      .from(surveyResponses)
      .where(where)
      .orderBy(desc(surveyResponses.submittedAt), desc(surveyResponses.id)),
    exec.select({ n: count() }).from(surveyResponses).where(where),
    page,
  );
}

/** A page of the NPS survey's responses, newest first. */
export function listNpsResponsesPage(
  exec: Executor,
  tenantId: string,
  npsSurveyId: string,
  page: PageRequest,
) {
  const where = and(eq(npsResponses.tenantId, tenantId), eq(npsResponses.npsSurveyId, npsSurveyId));
  return listPage(
    exec
      .select({
        id: npsResponses.id,
        npsSurveyId: npsResponses.npsSurveyId,
        endUserId: npsResponses.endUserId,
        score: npsResponses.score,
        comment: npsResponses.comment,
        submittedAt: npsResponses.submittedAt,
        tenantId: npsResponses.tenantId,
      })
      .from(npsResponses)
      .where(where)
      .orderBy(desc(npsResponses.submittedAt), desc(npsResponses.id)),
    exec.select({ n: count() }).from(npsResponses).where(where),
    page,
  );
}

const freshId = () => newId();

// The inserts of event processing: one statement per chunk whatever its size, from column arrays
// (unnest, which the query builder has no form for; the text built once); a replayed event (same
// tenant and event id) inserts nothing.

const sr = surveyResponses;
const INSERT_SURVEY_RESPONSES = fixedStatement<unknown, Record<string, unknown>>(sql`
  insert into ${sr} ${columnList([sr.id, sr.tenantId, sr.surveyId, sr.endUserId, sr.response, sr.submittedAt, sr.eventId])}
  select * from unnest(${sql.placeholder('ids')}::uuid[], ${sql.placeholder('tenantIds')}::uuid[],
    ${sql.placeholder('surveyIds')}::uuid[], ${sql.placeholder('endUserIds')}::uuid[],
    ${sql.placeholder('responses')}::jsonb[], ${sql.placeholder('submittedAts')}::timestamptz[],
    ${sql.placeholder('eventIds')}::uuid[])
  on conflict ${columnList([sr.tenantId, sr.eventId])} do nothing`);

export async function insertSurveyResponses(exec: Executor, rows: NewSurveyResponse[]): Promise<void> {
  if (rows.length === 0) return;
  const [ids, tenantIds, surveyIds, endUserIds, responses, submittedAts, eventIds] = columnsOf(rows, [
    freshId,
    'tenantId',
    'surveyId',
    'endUserId',
    (r) => JSON.stringify(r.response),
    'submittedAt',
    'eventId',
  ]);
  await runStatement(exec, INSERT_SURVEY_RESPONSES, {
    ids,
    tenantIds,
    surveyIds,
    endUserIds,
    responses,
    submittedAts,
    eventIds,
  });
}

const nr = npsResponses;
const INSERT_NPS_RESPONSES = fixedStatement<unknown, Record<string, unknown>>(sql`
  insert into ${nr} ${columnList([nr.id, nr.tenantId, nr.npsSurveyId, nr.endUserId, nr.score, nr.comment, nr.submittedAt, nr.eventId])}
  select * from unnest(${sql.placeholder('ids')}::uuid[], ${sql.placeholder('tenantIds')}::uuid[],
    ${sql.placeholder('npsSurveyIds')}::uuid[], ${sql.placeholder('endUserIds')}::uuid[],
    ${sql.placeholder('scores')}::int[], ${sql.placeholder('comments')}::text[],
    ${sql.placeholder('submittedAts')}::timestamptz[], ${sql.placeholder('eventIds')}::uuid[])
  on conflict ${columnList([nr.tenantId, nr.eventId])} do nothing`);

export async function insertNpsResponses(exec: Executor, rows: NewNpsResponse[]): Promise<void> {
  if (rows.length === 0) return;
  const [ids, tenantIds, npsSurveyIds, endUserIds, scores, comments, submittedAts, eventIds] = columnsOf(
    rows,
    [freshId, 'tenantId', 'npsSurveyId', 'endUserId', 'score', 'comment', 'submittedAt', 'eventId'],
  );
  await runStatement(exec, INSERT_NPS_RESPONSES, {
    ids,
    tenantIds,
    npsSurveyIds,
    endUserIds,
    scores,
    comments,
    submittedAts,
    eventIds,
  });
}

/** Identify's merge: every response of end user `fromId` becomes `toId`'s. */
export async function moveResponsesOfEndUser(
  exec: Executor,
  tenantId: string,
  fromId: string,
  toId: string,
): Promise<void> {
  await exec
    .update(surveyResponses)
    .set({ endUserId: toId })
    .where(and(eq(surveyResponses.tenantId, tenantId), eq(surveyResponses.endUserId, fromId)));
  await exec
    .update(npsResponses)
    .set({ endUserId: toId })
    .where(and(eq(npsResponses.tenantId, tenantId), eq(npsResponses.endUserId, fromId)));
}

/** A survey response as the export reads it: `at` is `createdAt` as UTC text to the microsecond (the keyset). */
export interface ExportedSurveyResponse {
  at: string;
  id: string;
  surveyId: string;
  endUserId: string | null;
  response: Record<string, unknown>;
  submittedAt: Date;
}

/**
 * A page of the tenant's survey responses (of one survey, with `surveyId`) stored in
 * [from, until), in stored order (created, id), after `after`: one range of
 * `survey_responses_tenant_created_idx` (migration 0094) per page.
 */
export function findSurveyResponsesForExport(
  exec: Executor,
  tenantId: string,
  filter: { surveyId?: string | undefined; from: Date | null; until: Date },
  after: { at: string; id: string } | null,
  limit: number,
): Promise<ExportedSurveyResponse[]> {
  const r = surveyResponses;
  const where: SQL[] = [eq(r.tenantId, tenantId), lt(r.createdAt, filter.until)];
  if (filter.from) where.push(gte(r.createdAt, filter.from));
  if (filter.surveyId) where.push(eq(r.surveyId, filter.surveyId));
  if (after) where.push(sql`(${r.createdAt}, ${r.id}) > (${after.at}::timestamptz, ${after.id}::uuid)`);
  return exec
    .select({
      at: microsIso(r.createdAt),
      id: r.id,
      surveyId: r.surveyId,
      endUserId: r.endUserId,
      response: r.response,
      submittedAt: r.submittedAt,
    })
    .from(r)
    .where(and(...where))
    .orderBy(asc(r.createdAt), asc(r.id))
    .limit(limit);
}
