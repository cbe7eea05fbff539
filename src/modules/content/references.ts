import { and, eq, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { contentItems, npsSurveys } from '../../db/schema/index.js';
import { isUuid } from '../../platform/ids.js';
import type { Referrer } from '../../platform/references.js';

/** Non-archived content items and NPS surveys targeting the audience (for 409 AUDIENCE_IN_USE). */
export async function findAudienceReferrers(
  exec: Executor,
  tenantId: string,
  audienceId: string,
): Promise<Referrer[]> {
  if (!isUuid(audienceId)) return [];
  const [items, surveys] = await Promise.all([
    exec
      .select({ type: contentItems.type, id: contentItems.id, name: contentItems.name })
      .from(contentItems)
      .where(
        and(
          eq(contentItems.tenantId, tenantId),
          eq(contentItems.audienceId, audienceId),
          ne(contentItems.status, 'ARCHIVED'),
        ),
      ),
    exec
      .select({ id: npsSurveys.id, name: npsSurveys.name })
      .from(npsSurveys)
      .where(
        and(
          eq(npsSurveys.tenantId, tenantId),
          eq(npsSurveys.audienceId, audienceId),
          ne(npsSurveys.status, 'ARCHIVED'),
        ),
      ),
  ]);
  return [
    ...items.map((r) => ({ type: r.type as string, id: r.id, name: r.name })),
    ...surveys.map((r) => ({ type: 'nps-survey', id: r.id, name: r.name })),
  ];
}
