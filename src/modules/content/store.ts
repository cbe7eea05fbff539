import { and, asc, count, desc, eq, ilike, ne, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import type { z } from 'zod';
import type { Executor } from '../../db/client.js';
import type { ContentStatus, contentItems, npsSurveys } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { contentNotFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { containsPattern, listPage, type PageRequest } from '../../platform/pagination.js';
import { stateColumns } from '../../platform/state-machine.js';
import { assertAudienceUsable } from '../audiences/index.js';
import { type ContentAction, contentLifecycle, transitionAudit } from './lifecycle.js';
import type { contentListQuery } from './schemas.js';

/**
 * What content items and NPS surveys share, written once: a table of records with the content
 * lifecycle, listed, looked up and moved between states the same way. A store names the table,
 * which of its rows are its records (`scope`: one content type of `content_items`), what a
 * missing one is called, and the audit entity type.
 */

/** The table with its row type erased (drizzle cannot follow a table type that is a parameter). */
type LifecycleTable = PgTable &
  Record<'id' | 'tenantId' | 'name' | 'siteId' | 'status' | 'createdAt' | 'updatedAt', PgColumn>;
type Row = { id: string; status: ContentStatus };

export interface Store<R extends Row> {
  table: LifecycleTable;
  /** Singular, for "… not found". */
  label: string;
  /** `entityType` of its audit rows. */
  entityType: string;
  /** Further WHERE naming the store's rows (e.g. `type = 'surveys'`). */
  scope?: SQL | undefined;
  /** Type only: the row type of `table`. */
  readonly row?: R;
}

export const storeOf = <T extends typeof contentItems | typeof npsSurveys>(
  table: T,
  opts: Omit<Store<T['$inferSelect']>, 'table' | 'row'>,
): Store<T['$inferSelect']> => ({ table: table as LifecycleTable, ...opts });

export type ListQuery = z.output<typeof contentListQuery>;

/** The tenant's rows of the store, and `more`. */
const scoped = (ctx: ServiceCtx, store: Store<Row>, ...more: (SQL | undefined)[]) =>
  and(eq(store.table.tenantId, ctx.tenantId), store.scope, ...more)!;

/** A select over an erased table, typed from the columns it names. */
const typedRows = <C extends Record<string, PgColumn>>(query: unknown) =>
  query as { limit(n: number): { offset(n: number): Promise<SelectResultFields<C>[]> } };

/** The list page: ARCHIVED only with `status=ARCHIVED`; search, siteId; `sortBy=name` ignores case. */
export function listRecords<R extends Row, C extends Record<string, PgColumn>>(
  ctx: ServiceCtx,
  store: Store<R>,
  query: ListQuery,
  columns: C,
) {
  const { table } = store;
  const where = scoped(
    ctx,
    store,
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
    typedRows<C>(ctx.db.select(columns).from(table).where(where).orderBy(dir(sortColumn), dir(table.id))),
    ctx.db.select({ n: count() }).from(table).where(where),
    query,
  );
}

/** The record of the tenant (locked for update with `lock`); 404 CONTENT_NOT_FOUND otherwise. */
export async function findRow<R extends Row>(
  exec: Executor,
  ctx: ServiceCtx,
  store: Store<R>,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<R> {
  if (!isUuid(id)) throw contentNotFound(store.label);
  const query = exec
    .select()
    .from(store.table)
    .where(scoped(ctx, store, eq(store.table.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  if (!row) throw contentNotFound(store.label);
  return row as R;
}

/** 400 at `audienceId` unless it is a live audience of the tenant (null clears it: fine). */
export async function checkAudience(exec: Executor, ctx: ServiceCtx, audienceId: string | null | undefined) {
  if (typeof audienceId === 'string')
    await assertAudienceUsable(exec, ctx.tenantId, audienceId, 'audienceId');
}

/**
 * publish, unpublish, archive (DELETE) and restore under a row lock, checked by the lifecycle
 * table; the state columns and the transition's audit row are written together. Archiving an
 * archived record is a no-op (nothing written).
 */
export async function changeState<R extends Row>(
  ctx: ServiceCtx,
  store: Store<R>,
  id: string,
  action: ContentAction,
): Promise<R> {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, store, id, { lock: true });
    const to = contentLifecycle.apply(row.status, action);
    if (to === row.status) return row;
    const [updated] = await tx
      .update(store.table)
      .set(stateColumns(row.status, to, ctx.now))
      .where(scoped(ctx, store, eq(store.table.id, row.id)))
      .returning();
    await audit(ctx, tx, {
      ...transitionAudit(row.status, to, action),
      entityType: store.entityType,
      entityId: row.id,
    });
    return updated as R;
  });
}

/** A table of responses to a store's records; `parent` is the column naming the record. */
export interface ResponseTable<C extends Record<string, PgColumn>> {
  table: PgTable & Record<'id' | 'tenantId' | 'submittedAt', PgColumn>;
  parent: PgColumn;
  columns: C;
}

/** Responses to one record of the store (any status), newest first; 404 when it is not the tenant's. */
export async function listResponses<R extends Row, C extends Record<string, PgColumn>>(
  ctx: ServiceCtx,
  store: Store<R>,
  id: string,
  page: PageRequest,
  responses: ResponseTable<C>,
) {
  const record = await findRow(ctx.db, ctx, store, id);
  const { table, parent, columns } = responses;
  const where = and(eq(table.tenantId, ctx.tenantId), eq(parent, record.id));
  return listPage(
    typedRows<C>(
      ctx.db.select(columns).from(table).where(where).orderBy(desc(table.submittedAt), desc(table.id)),
    ),
    ctx.db.select({ n: count() }).from(table).where(where),
    page,
  );
}
