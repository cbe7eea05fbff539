import { and, asc, count, desc, eq, ilike, inArray, isNull, ne, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { audiences } from '../../db/schema/index.js';
import type { RuleNode } from '../../engine/rules.js';
import { isUuid } from '../../platform/ids.js';
import { containsPattern, listPage, type PageRequest } from '../../platform/pagination.js';
import type { ReferenceFinder, Referrer } from '../../platform/references.js';

/** The queries of the audiences module: its table `audiences`. */

export type AudienceRow = typeof audiences.$inferSelect;
export type NewAudienceRow = typeof audiences.$inferInsert;

/** The tenant's audience `id` unless it is soft-deleted. */
const live = (tenantId: string, id: string) =>
  and(eq(audiences.tenantId, tenantId), eq(audiences.id, id), isNull(audiences.deletedAt));

/**
 * The tenant's audience `id` — live only unless `includeDeleted` — locked for the rest of the
 * transaction with `lock`; undefined when there is none (a malformed id included).
 */
export async function findAudience(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean; includeDeleted?: boolean } = {},
): Promise<AudienceRow | undefined> {
  if (!isUuid(id)) return undefined;
  const where = opts.includeDeleted
    ? and(eq(audiences.tenantId, tenantId), eq(audiences.id, id))
    : live(tenantId, id);
  const query = exec.select().from(audiences).where(where).limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

/** A page of the tenant's live audiences, newest first; `search`: a case-insensitive substring of the name. */
export function listAudiencesPage(
  exec: Executor,
  tenantId: string,
  filter: { search?: string | undefined },
  page: PageRequest,
) {
  const where: SQL[] = [eq(audiences.tenantId, tenantId), isNull(audiences.deletedAt)];
  if (filter.search) where.push(ilike(audiences.name, containsPattern(filter.search)));
  return listPage(
    exec
      .select()
      .from(audiences)
      .where(and(...where))
      .orderBy(desc(audiences.createdAt), desc(audiences.id)),
    exec
      .select({ n: count() })
      .from(audiences)
      .where(and(...where)),
    page,
  );
}

export async function insertAudience(exec: Executor, values: NewAudienceRow): Promise<AudienceRow> {
  const [row] = await exec.insert(audiences).values(values).returning();
  return row!;
}

/**
 * Writes `set` on the tenant's audience — live only unless `includeDeleted` —; the row after,
 * or undefined when there is none.
 */
export async function updateAudienceRow(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<NewAudienceRow>,
  opts: { includeDeleted?: boolean } = {},
): Promise<AudienceRow | undefined> {
  if (!isUuid(id)) return undefined;
  const where = opts.includeDeleted
    ? and(eq(audiences.tenantId, tenantId), eq(audiences.id, id))
    : live(tenantId, id);
  const [row] = await exec.update(audiences).set(set).where(where).returning();
  return row;
}

/**
 * For SDK delivery: id → rule tree of the tenant's live (non-deleted) audiences, optionally only
 * those among `ids`. Evaluate with `matchesRules(tree, context)` from src/engine/rules.ts.
 */
export async function loadLiveAudiences(
  exec: Executor,
  tenantId: string,
  ids?: readonly string[],
): Promise<Map<string, RuleNode>> {
  const where: SQL[] = [eq(audiences.tenantId, tenantId), isNull(audiences.deletedAt)];
  if (ids) {
    const wanted = [...new Set(ids.filter(isUuid))];
    if (wanted.length === 0) return new Map();
    where.push(inArray(audiences.id, wanted));
  }
  const rows = await exec
    .select({ id: audiences.id, ruleTree: audiences.ruleTree })
    .from(audiences)
    .where(and(...where));
  return new Map(rows.map((r) => [r.id, r.ruleTree]));
}

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
 * AUDIENCE_IN_USE lists them); each module contributes a finder for its tables in its manifest,
 * built by its store with this. The one query here over other modules' tables, written once:
 * `type` names the referrer, a fixed word or a column of the table (a content item's type).
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
