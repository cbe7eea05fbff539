import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { contentItems, npsSurveys } from '../../db/schema/index.js';
import { isUuid } from '../../platform/ids.js';
import type { SurveyQuestion } from './definitions.js';
import { type ContentRecord, type NpsSurveyRecord, toContentRecord, toNpsRecord } from './records.js';

/**
 * What the SDK may serve a tenant's end users now: PUBLISHED, unexpired content items of every
 * type (records as the API shows them, with `contentType`) and PUBLISHED NPS surveys. Audience,
 * url and trigger matching are the caller's.
 */
export async function loadDeliverableContent(
  exec: Executor,
  tenantId: string,
  now: Date,
): Promise<{ content: ContentRecord[]; npsSurveys: NpsSurveyRecord[] }> {
  const [items, surveys] = await Promise.all([
    exec
      .select()
      .from(contentItems)
      .where(
        and(
          eq(contentItems.tenantId, tenantId),
          eq(contentItems.status, 'PUBLISHED'),
          or(isNull(contentItems.expiresAt), gt(contentItems.expiresAt, now)),
        ),
      )
      .orderBy(asc(contentItems.createdAt), asc(contentItems.id)),
    exec
      .select()
      .from(npsSurveys)
      .where(and(eq(npsSurveys.tenantId, tenantId), eq(npsSurveys.status, 'PUBLISHED')))
      .orderBy(asc(npsSurveys.createdAt), asc(npsSurveys.id)),
  ]);
  return { content: items.map(toContentRecord), npsSurveys: surveys.map(toNpsRecord) };
}

export interface SurveyForResponses {
  id: string;
  name: string;
  status: string;
  questions: Pick<SurveyQuestion, 'key' | 'type' | 'required' | 'options'>[];
}

/** A survey of the tenant (any status) with its questions, for validating responses; null when absent. */
export async function getSurveyForResponses(
  exec: Executor,
  tenantId: string,
  surveyId: string,
): Promise<SurveyForResponses | null> {
  if (!isUuid(surveyId)) return null;
  const [row] = await exec
    .select({
      id: contentItems.id,
      name: contentItems.name,
      status: contentItems.status,
      body: contentItems.body,
    })
    .from(contentItems)
    .where(
      and(
        eq(contentItems.tenantId, tenantId),
        eq(contentItems.type, 'surveys'),
        eq(contentItems.id, surveyId),
      ),
    )
    .limit(1);
  if (!row) return null;
  const questions = (row.body.questions as SurveyQuestion[] | undefined) ?? [];
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    questions: questions.map((q) => ({ key: q.key, type: q.type, required: q.required, options: q.options })),
  };
}
