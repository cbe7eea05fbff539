import { and, asc, count, eq, gte, lte, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { npsResponses, npsSurveys } from '../../../db/schema/index.js';
import { fixedStatement, runStatement } from '../../../db/statements.js';
import { isUuid } from '../../../platform/ids.js';
import { audienceReferrers } from '../../audiences/index.js';
import type { NpsSurveyRow } from './records.js';

/** Queries of `nps_surveys` beyond what it shares with content items (./records.ts). */

export type NewNpsSurveyRow = typeof npsSurveys.$inferInsert;

export async function insertNpsSurvey(exec: Executor, values: NewNpsSurveyRow): Promise<NpsSurveyRow> {
  const [row] = await exec.insert(npsSurveys).values(values).returning();
  return row!;
}

/** Writes `set` on the tenant's NPS survey; the row after, or undefined when there is none. */
export async function updateNpsSurveyRow(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<NewNpsSurveyRow>,
): Promise<NpsSurveyRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await exec
    .update(npsSurveys)
    .set(set)
    .where(and(eq(npsSurveys.tenantId, tenantId), eq(npsSurveys.id, id)))
    .returning();
  return row;
}

/** The tenant's PUBLISHED NPS surveys, oldest first. */
export function listPublishedNpsSurveys(exec: Executor, tenantId: string): Promise<NpsSurveyRow[]> {
  return exec
    .select()
    .from(npsSurveys)
    .where(and(eq(npsSurveys.tenantId, tenantId), eq(npsSurveys.status, 'PUBLISHED')))
    .orderBy(asc(npsSurveys.createdAt), asc(npsSurveys.id));
}

/**
 * How the survey's responses submitted within `range` split: all of them, promoters (9-10),
 * passives (7-8) and detractors (0-6).
 */
export async function countNpsScores(
  exec: Executor,
  tenantId: string,
  npsSurveyId: string,
  range: { startDate?: Date | undefined; endDate?: Date | undefined },
) {
  const where: SQL[] = [eq(npsResponses.tenantId, tenantId), eq(npsResponses.npsSurveyId, npsSurveyId)];
  if (range.startDate) where.push(gte(npsResponses.submittedAt, range.startDate));
  if (range.endDate) where.push(lte(npsResponses.submittedAt, range.endDate));
  const [counts] = await exec
    .select({
      total: count(),
      promoters: sql<number>`count(*) filter (where ${npsResponses.score} >= 9)`.mapWith(Number),
      passives: sql<number>`count(*) filter (where ${npsResponses.score} between 7 and 8)`.mapWith(Number),
      detractors: sql<number>`count(*) filter (where ${npsResponses.score} <= 6)`.mapWith(Number),
    })
    .from(npsResponses)
    .where(and(...where));
  return counts ?? { total: 0, promoters: 0, passives: 0, detractors: 0 };
}

/** "Which NPS surveys still target this audience?" (the audiences module's finder over this table). */
export const npsSurveysTargetingAudience = audienceReferrers(npsSurveys, {
  type: 'nps-survey',
  archived: 'ARCHIVED',
});

export type NpsSurveyStatusRow = Pick<NpsSurveyRow, 'id' | 'tenantId' | 'status'>;

const NPS_SURVEYS_OF = fixedStatement<NpsSurveyStatusRow, Record<string, unknown>>(sql`
  select ${npsSurveys.id} as "id", ${npsSurveys.tenantId} as "tenantId", ${npsSurveys.status} as "status"
  from ${npsSurveys}
  join unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('ids')}::uuid[]) as p (tenant_id, id)
    on ${npsSurveys.tenantId} = p.tenant_id and ${npsSurveys.id} = p.id`);

/**
 * The NPS surveys among (tenant, id) pairs (`tenantIds[i]`, `ids[i]`), any status, for a chunk
 * of events in one statement (an unnest join; its text built once: event processing).
 */
export const findNpsSurveysOf = (
  exec: Executor,
  pairs: { tenantIds: string[]; ids: string[] },
): Promise<NpsSurveyStatusRow[]> => runStatement(exec, NPS_SURVEYS_OF, pairs);
