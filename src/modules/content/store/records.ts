import { and, asc, count, desc, eq, ilike, ne, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import type { Executor } from '../../../db/client.js';
import {
  CONTENT_STATUSES,
  CONTENT_TYPES,
  type ContentStatus,
  type ContentType,
  contentItems,
  npsSurveys,
} from '../../../db/schema/index.js';
import { isUuid } from '../../../platform/ids.js';
import { containsPattern, listPage, type PageRequest } from '../../../platform/pagination.js';
import type { StateColumns } from '../../../platform/state-machine.js';

/**
 * What content items and NPS surveys share, written once: tables of records with the content
 * lifecycle, listed, looked up and moved between states the same way. A record set names the
 * table and which of its rows are its records (`scope`: one content type of `content_items`).
 */

export { CONTENT_STATUSES, CONTENT_TYPES, type ContentStatus, type ContentType };
export type ContentItemRow = typeof contentItems.$inferSelect;
export type NpsSurveyRow = typeof npsSurveys.$inferSelect;

/** The table with its row type erased (drizzle cannot follow a table type that is a parameter). */
type LifecycleTable = PgTable &
  Record<'id' | 'tenantId' | 'name' | 'siteId' | 'status' | 'createdAt' | 'updatedAt', PgColumn>;

export interface RecordSet<R extends { id: string; status: ContentStatus }> {
  table: LifecycleTable;
  /** Further WHERE naming the set's rows (e.g. `type = 'surveys'`). */
  scope?: SQL | undefined;
  /** Type only: the row type of `table`. */
  readonly row?: R;
}

type AnyRecordSet = Pick<RecordSet<never>, 'table' | 'scope'>;

const ITEMS_OF_TYPE = Object.fromEntries(
  CONTENT_TYPES.map((type) => [
    type,
    { table: contentItems as LifecycleTable, scope: eq(contentItems.type, type) },
  ]),
) as Record<ContentType, RecordSet<ContentItemRow>>;

/** The content items of one type. */
export const contentItemsOfType = (type: ContentType): RecordSet<ContentItemRow> => ITEMS_OF_TYPE[type];

export const NPS_SURVEY_RECORDS: RecordSet<NpsSurveyRow> = { table: npsSurveys as LifecycleTable };

/** The tenant's rows of the set, and `more`. */
const scoped = (tenantId: string, set: AnyRecordSet, ...more: (SQL | undefined)[]) =>
  and(eq(set.table.tenantId, tenantId), set.scope, ...more)!;

/** A select over an erased table, typed from the columns it names. */
const typedRows = <C extends Record<string, PgColumn>>(query: unknown) =>
  query as { limit(n: number): { offset(n: number): Promise<SelectResultFields<C>[]> } };

export interface RecordListQuery extends PageRequest {
  /** One status; absent: every status but ARCHIVED (archived records are soft-deleted). */
  status?: ContentStatus | undefined;
  search?: string | undefined;
  siteId?: string | undefined;
  sortBy: 'name' | 'status' | 'createdAt' | 'updatedAt';
  sortDirection: 'asc' | 'desc';
}

/** A list page of the set; `sortBy=name` ignores case. */
function listRecordsPage<C extends Record<string, PgColumn>>(
  exec: Executor,
  tenantId: string,
  set: AnyRecordSet,
  query: RecordListQuery,
  columns: C,
) {
  const { table } = set;
  const where = scoped(
    tenantId,
    set,
    query.status ? eq(table.status, query.status) : ne(table.status, 'ARCHIVED'),
    query.search ? ilike(table.name, containsPattern(query.search)) : undefined,
    query.siteId ? eq(table.siteId, query.siteId) : undefined,
  );
  const sortColumn = {
    // Case-insensitive, the same on every database collation.
    name: sql`lower(${table.name})`,
    status: table.status,
    createdAt: table.createdAt,
    updatedAt: table.updatedAt,
  }[query.sortBy];
  const dir = query.sortDirection === 'asc' ? asc : desc;
  return listPage(
    typedRows<C>(exec.select(columns).from(table).where(where).orderBy(dir(sortColumn), dir(table.id))),
    exec.select({ n: count() }).from(table).where(where),
    query,
  );
}

const contentListColumns = {
  id: contentItems.id,
  tenantId: contentItems.tenantId,
  contentType: contentItems.type,
  name: contentItems.name,
  siteId: contentItems.siteId,
  status: contentItems.status,
  audienceId: contentItems.audienceId,
  priority: contentItems.priority,
  bypassCaps: contentItems.bypassCaps,
  createdAt: contentItems.createdAt,
  updatedAt: contentItems.updatedAt,
};

/** A list page of the tenant's content items of one type (the list's columns only). */
export const listContentItemsPage = (
  exec: Executor,
  tenantId: string,
  type: ContentType,
  query: RecordListQuery,
) => listRecordsPage(exec, tenantId, contentItemsOfType(type), query, contentListColumns);

const npsListColumns = {
  id: npsSurveys.id,
  tenantId: npsSurveys.tenantId,
  name: npsSurveys.name,
  siteId: npsSurveys.siteId,
  status: npsSurveys.status,
  audienceId: npsSurveys.audienceId,
  createdAt: npsSurveys.createdAt,
  updatedAt: npsSurveys.updatedAt,
};

/** A list page of the tenant's NPS surveys (the list's columns only). */
export const listNpsSurveysPage = (exec: Executor, tenantId: string, query: RecordListQuery) =>
  listRecordsPage(exec, tenantId, NPS_SURVEY_RECORDS, query, npsListColumns);

/** The tenant's record of the set (locked for update with `lock`); a malformed id matches nothing. */
export async function findRecord<R extends { id: string; status: ContentStatus }>(
  exec: Executor,
  tenantId: string,
  set: RecordSet<R>,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<R | undefined> {
  if (!isUuid(id)) return undefined;
  const query = exec
    .select()
    .from(set.table)
    .where(scoped(tenantId, set, eq(set.table.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row as R | undefined;
}

/** Writes a state change on the tenant's record; the row after, or undefined when there is none. */
export async function updateRecordState<R extends { id: string; status: ContentStatus }>(
  exec: Executor,
  tenantId: string,
  set: RecordSet<R>,
  id: string,
  columns: StateColumns<ContentStatus>,
): Promise<R | undefined> {
  const [row] = await exec
    .update(set.table)
    .set(columns)
    .where(scoped(tenantId, set, eq(set.table.id, id)))
    .returning();
  return row as R | undefined;
}
