import { and, asc, eq, ne } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { isUuid } from '../../platform/ids.js';
import type { ReferenceFinder, Referrer } from '../../platform/references.js';

/** A table whose records target an audience: flows, content items, NPS surveys, experiments, journeys. */
type TargetingTable = PgTable & {
  id: PgColumn;
  name: PgColumn;
  tenantId: PgColumn;
  audienceId: PgColumn;
  status: PgColumn;
};

/**
 * "Which records still target this audience?" for one table: the tenant's records with that
 * audience that are not archived, by name. An audience cannot be deleted while any remain (409
 * AUDIENCE_IN_USE lists them); each module contributes a finder for its tables in its manifest.
 * `type` names the referrer: a fixed word, or a column of the table (a content item's type).
 */
export function audienceReferrers(
  table: TargetingTable,
  opts: { type: string | PgColumn; archived: string },
): ReferenceFinder {
  return async (exec: Executor, tenantId: string, audienceId: string): Promise<Referrer[]> => {
    if (!isUuid(audienceId)) return [];
    const rows = await exec
      .select({
        id: table.id,
        name: table.name,
        ...(typeof opts.type === 'string' ? {} : { type: opts.type }),
      })
      .from(table as PgTable)
      .where(
        and(eq(table.tenantId, tenantId), eq(table.audienceId, audienceId), ne(table.status, opts.archived)),
      )
      .orderBy(asc(table.name));
    return rows.map((r) => ({
      type: typeof opts.type === 'string' ? opts.type : String((r as { type?: unknown }).type),
      id: String(r.id),
      name: String(r.name),
    }));
  };
}
