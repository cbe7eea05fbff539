import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { sqlRows } from '../../../db/raw.js';
import { audiences, CONTENT_TYPES, contentItems, flows, npsSurveys } from '../../../db/schema/index.js';

/**
 * What the journeys module reads of other modules' tables: the flows, content items and NPS
 * surveys CONTENT nodes show (existing, not archived), and the audience a journey targets.
 */

export { CONTENT_TYPES };

/** The tenant's flows of these ids that are not archived, by id. */
export const listShowableFlows = (exec: Executor, tenantId: string, ids: string[]) =>
  exec
    .select()
    .from(flows)
    .where(and(eq(flows.tenantId, tenantId), inArray(flows.id, ids), ne(flows.status, 'ARCHIVED')))
    .orderBy(asc(flows.id));

/** The tenant's content items of these ids that are not archived. */
export const listShowableContent = (exec: Executor, tenantId: string, ids: string[]) =>
  exec
    .select()
    .from(contentItems)
    .where(
      and(
        eq(contentItems.tenantId, tenantId),
        inArray(contentItems.id, ids),
        ne(contentItems.status, 'ARCHIVED'),
      ),
    );

/** The tenant's NPS surveys of these ids that are not archived. */
export const listShowableSurveys = (exec: Executor, tenantId: string, ids: string[]) =>
  exec
    .select()
    .from(npsSurveys)
    .where(
      and(eq(npsSurveys.tenantId, tenantId), inArray(npsSurveys.id, ids), ne(npsSurveys.status, 'ARCHIVED')),
    );

/**
 * The tenant's flows, content items and NPS surveys that are not archived, most recently updated
 * first: `kind` is `flows`, the content item's type, or `nps-surveys`.
 */
export async function listShowableCatalog(exec: Executor, tenantId: string, limit: number) {
  return sqlRows<{ kind: string; id: string; name: string }>(
    exec,
    sql`select kind, id, name from (
       select 'flows' as kind, ${flows.id} as id, ${flows.name} as name, ${flows.updatedAt} as updated_at
       from ${flows} where ${flows.tenantId} = ${tenantId} and ${flows.status} <> 'ARCHIVED'
       union all
       select ${contentItems.type}, ${contentItems.id}, ${contentItems.name}, ${contentItems.updatedAt}
       from ${contentItems} where ${contentItems.tenantId} = ${tenantId} and ${contentItems.status} <> 'ARCHIVED'
       union all
       select 'nps-surveys', ${npsSurveys.id}, ${npsSurveys.name}, ${npsSurveys.updatedAt}
       from ${npsSurveys} where ${npsSurveys.tenantId} = ${tenantId} and ${npsSurveys.status} <> 'ARCHIVED'
     ) c order by updated_at desc, id limit ${limit}`,
  );
}

/** The audience's id, name and description, or undefined. */
export async function findAudienceSummary(exec: Executor, tenantId: string, audienceId: string) {
  const [row] = await exec
    .select({ id: audiences.id, name: audiences.name, description: audiences.description })
    .from(audiences)
    .where(and(eq(audiences.tenantId, tenantId), eq(audiences.id, audienceId)))
    .limit(1);
  return row;
}

/** Which of these ids are the tenant's flows / NPS surveys / content items of `slug`, not archived. */
export async function listShowableIds(
  exec: Executor,
  tenantId: string,
  kind: { table: 'flows' | 'nps-surveys' } | { table: 'content'; slug: string },
  ids: string[],
): Promise<string[]> {
  let rows: { id: string }[];
  if (kind.table === 'flows') {
    rows = await exec
      .select({ id: flows.id })
      .from(flows)
      .where(and(eq(flows.tenantId, tenantId), inArray(flows.id, ids), ne(flows.status, 'ARCHIVED')));
  } else if (kind.table === 'nps-surveys') {
    rows = await exec
      .select({ id: npsSurveys.id })
      .from(npsSurveys)
      .where(
        and(
          eq(npsSurveys.tenantId, tenantId),
          inArray(npsSurveys.id, ids),
          ne(npsSurveys.status, 'ARCHIVED'),
        ),
      );
  } else if (kind.table === 'content') {
    rows = await exec
      .select({ id: contentItems.id })
      .from(contentItems)
      .where(
        and(
          eq(contentItems.tenantId, tenantId),
          sql`${contentItems.type} = ${kind.slug}`,
          inArray(contentItems.id, ids),
          ne(contentItems.status, 'ARCHIVED'),
        ),
      );
  } else rows = [];
  return rows.map((r) => r.id);
}
