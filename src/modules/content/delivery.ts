import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { contentItems, npsSurveys } from '../../db/schema/index.js';
import { liveAt } from '../../platform/schedule.js';
import type { SurveyQuestion } from './definitions.js';
import { type ContentRecord, type NpsSurveyRecord, toContentRecord } from './records.js';

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
      .where(and(eq(contentItems.tenantId, tenantId), liveAt(contentItems, now)))
      .orderBy(asc(contentItems.createdAt), asc(contentItems.id)),
    exec
      .select()
      .from(npsSurveys)
      .where(and(eq(npsSurveys.tenantId, tenantId), eq(npsSurveys.status, 'PUBLISHED')))
      .orderBy(asc(npsSurveys.createdAt), asc(npsSurveys.id)),
  ]);
  return { content: items.map(toContentRecord), npsSurveys: surveys };
}

/** A survey as response checks see it (loaded in batches by the response effect). */
export interface SurveyForResponses {
  id: string;
  name: string;
  status: string;
  questions: Pick<SurveyQuestion, 'key' | 'type' | 'required' | 'options'>[];
}
