import { and, count, desc, eq } from 'drizzle-orm';
import { contentItems, surveyResponses } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import { contentNotFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { type PageRequest, pageOffset } from '../../platform/pagination.js';

const responseColumns = {
  id: surveyResponses.id,
  surveyId: surveyResponses.surveyId,
  endUserId: surveyResponses.endUserId,
  response: surveyResponses.response,
  submittedAt: surveyResponses.submittedAt,
  tenantId: surveyResponses.tenantId,
};

/** Responses to one survey of the tenant (any status), newest first. */
export async function listSurveyResponses(ctx: ServiceCtx, surveyId: string, query: PageRequest) {
  if (!isUuid(surveyId)) throw contentNotFound('Survey');
  const [survey] = await ctx.db
    .select({ id: contentItems.id })
    .from(contentItems)
    .where(
      and(
        eq(contentItems.tenantId, ctx.tenantId),
        eq(contentItems.type, 'surveys'),
        eq(contentItems.id, surveyId),
      ),
    )
    .limit(1);
  if (!survey) throw contentNotFound('Survey');
  const where = and(eq(surveyResponses.tenantId, ctx.tenantId), eq(surveyResponses.surveyId, surveyId));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(responseColumns)
      .from(surveyResponses)
      .where(where)
      .orderBy(desc(surveyResponses.submittedAt), desc(surveyResponses.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db.select({ n: count() }).from(surveyResponses).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
