import { and, asc, count, desc, eq, gte, isNull, lt, notExists, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { preparedQuery } from '../../db/prepared.js';
import { columnsOf, SEP, sortedByKey } from '../../db/raw.js';
import { contentItems, endUserItemStates, endUsers, flows, npsSurveys } from '../../db/schema/index.js';
import { columnList, fixedStatement, microsIso, runStatement } from '../../db/statements.js';
import { newId } from '../../platform/ids.js';
import { listPage, type PageRequest, prefixPattern } from '../../platform/pagination.js';

/** The queries of the end-users module: its tables `end_users` and `end_user_item_states`. */

export type EndUserRow = typeof endUsers.$inferSelect;

// ---- identify --------------------------------------------------------------------------------

/** The tenant's anonymous-only end user of `anonymousId`, locked for the transaction. */
export async function findAnonymousEndUserForUpdate(
  exec: Executor,
  tenantId: string,
  anonymousId: string,
): Promise<{ id: string } | undefined> {
  const [row] = await exec
    .select({ id: endUsers.id })
    .from(endUsers)
    .where(
      and(
        eq(endUsers.tenantId, tenantId),
        eq(endUsers.anonymousId, anonymousId),
        isNull(endUsers.externalId),
      ),
    )
    .for('update');
  return row;
}

/**
 * Gives the anonymous end user `id` the external id `userId` (traits merged shallowly, given
 * ones winning; last seen moved forward to `seenAt`), unless the tenant already has an end user
 * with that external id. The end user adopted, or undefined.
 */
export async function adoptAnonymousEndUser(
  exec: Executor,
  tenantId: string,
  id: string,
  change: { userId: string; traits: Record<string, unknown>; seenAt: Date },
): Promise<{ id: string } | undefined> {
  const other = alias(endUsers, 'u');
  const [row] = await exec
    .update(endUsers)
    .set({
      externalId: change.userId,
      traits: sql`${endUsers.traits} || ${JSON.stringify(change.traits)}::jsonb`,
      lastSeenAt: sql`greatest(${endUsers.lastSeenAt}, ${change.seenAt.toISOString()}::timestamptz)`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(endUsers.tenantId, tenantId),
        eq(endUsers.id, id),
        notExists(
          exec
            .select({ one: sql`1` })
            .from(other)
            .where(and(eq(other.tenantId, tenantId), eq(other.externalId, change.userId))),
        ),
      ),
    )
    .returning({ id: endUsers.id });
  return row;
}

/**
 * The end user of the tenant with external id `userId`: created with `id` when missing, else its
 * traits merged shallowly (given ones winning), its anonymous id set when given, and its last
 * seen moved forward to `seenAt`. Its id (`id` when created).
 */
export async function upsertIdentifiedEndUser(
  exec: Executor,
  values: {
    id: string;
    tenantId: string;
    userId: string;
    anonymousId: string | null;
    traits: Record<string, unknown>;
    seenAt: Date;
  },
): Promise<string> {
  const [row] = await exec
    .insert(endUsers)
    .values({
      id: values.id,
      tenantId: values.tenantId,
      externalId: values.userId,
      anonymousId: values.anonymousId,
      traits: values.traits,
      firstSeenAt: values.seenAt,
      lastSeenAt: values.seenAt,
    })
    .onConflictDoUpdate({
      target: [endUsers.tenantId, endUsers.externalId],
      targetWhere: sql`external_id is not null`,
      set: {
        traits: sql`${endUsers.traits} || excluded.traits`,
        anonymousId: sql`coalesce(excluded.anonymous_id, ${endUsers.anonymousId})`,
        lastSeenAt: sql`greatest(${endUsers.lastSeenAt}, excluded.last_seen_at)`,
        updatedAt: sql`now()`,
      },
    })
    .returning({ id: endUsers.id });
  return row!.id;
}

/** The size in bytes of the end user's stored traits (as JSON text). */
export async function traitsBytes(exec: Executor, tenantId: string, id: string): Promise<number | undefined> {
  const [row] = await exec
    .select({ bytes: sql<number>`octet_length(${endUsers.traits}::text)` })
    .from(endUsers)
    .where(and(eq(endUsers.tenantId, tenantId), eq(endUsers.id, id)));
  return row?.bytes;
}

/**
 * Folds end user `fromId` into `toId` (traits merged, `toId`'s winning; the earliest first seen
 * and the latest last seen) and deletes `fromId`. Every table pointing at `fromId` has moved its
 * rows first (the mergers).
 */
export async function foldEndUserInto(
  exec: Executor,
  tenantId: string,
  fromId: string,
  toId: string,
): Promise<void> {
  const from = alias(endUsers, 'f');
  await exec
    .update(endUsers)
    .set({
      traits: sql`${from.traits} || ${endUsers.traits}`,
      firstSeenAt: sql`least(${endUsers.firstSeenAt}, ${from.firstSeenAt})`,
      lastSeenAt: sql`greatest(${endUsers.lastSeenAt}, ${from.lastSeenAt})`,
    })
    .from(from)
    .where(
      and(
        eq(endUsers.tenantId, tenantId),
        eq(endUsers.id, toId),
        eq(from.tenantId, tenantId),
        eq(from.id, fromId),
      ),
    );
  await exec.delete(endUsers).where(and(eq(endUsers.tenantId, tenantId), eq(endUsers.id, fromId)));
}

/** Identify's merge: the item states of `fromId` move to `toId`, the earliest times kept. */
export async function moveItemStatesOf(
  exec: Executor,
  tenantId: string,
  fromId: string,
  toId: string,
): Promise<void> {
  const s = endUserItemStates;
  await exec.execute(sql`
    insert into ${s} ${columnList([s.tenantId, s.endUserId, s.itemId, s.completedAt, s.dismissedAt, s.updatedAt])}
    select ${s.tenantId}, ${toId}::uuid, ${s.itemId}, ${s.completedAt}, ${s.dismissedAt}, now()
    from ${s} where ${s.tenantId} = ${tenantId} and ${s.endUserId} = ${fromId}
    on conflict ${columnList([s.tenantId, s.endUserId, s.itemId])} do update set
      ${sql.identifier(s.completedAt.name)} = least(${s.completedAt}, excluded.completed_at),
      ${sql.identifier(s.dismissedAt.name)} = least(${s.dismissedAt}, excluded.dismissed_at),
      ${sql.identifier(s.updatedAt.name)} = now()`);
  await exec.delete(s).where(and(eq(s.tenantId, tenantId), eq(s.endUserId, fromId)));
}

// ---- resolution ------------------------------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How the dashboard's routes name an end user: by its service id or its userId (external id).
 * A uuid-looking value matches either (a userId may be a uuid); the earliest created wins.
 */
const byIdOrUserId = (idOrUserId: string) =>
  UUID.test(idOrUserId)
    ? or(eq(endUsers.id, idOrUserId), eq(endUsers.externalId, idOrUserId))
    : eq(endUsers.externalId, idOrUserId);

/** A tenant's end user by its service id or its userId (external id); null when not this tenant's. */
export async function findEndUserRef(exec: Executor, tenantId: string, idOrUserId: string) {
  const [row] = await exec
    .select({ id: endUsers.id, externalId: endUsers.externalId, anonymousId: endUsers.anonymousId })
    .from(endUsers)
    .where(and(eq(endUsers.tenantId, tenantId), byIdOrUserId(idOrUserId)))
    .orderBy(asc(endUsers.createdAt))
    .limit(1);
  return row ?? null;
}

export type EndUserOfUserId = Pick<EndUserRow, 'id' | 'tenantId'> & { userId: string };

const END_USERS_OF_USER_IDS = fixedStatement<EndUserOfUserId, Record<string, unknown>>(sql`
  select u.id as "id", p.tenant_id as "tenantId", p.user_id as "userId"
  from unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('userIds')}::text[]) as p (tenant_id, user_id)
  cross join lateral end_user_of(p.tenant_id, p.user_id, null) u`);

/**
 * The end users of (tenant, userId) pairs (`tenantIds[i]`, `userIds[i]`) by the resolution rule
 * (`end_user_of`, migration 0021), for a chunk of events in one statement (its text built once:
 * event processing); pairs with none are left out.
 */
export const findEndUsersOfUserIds = (
  exec: Executor,
  pairs: { tenantIds: string[]; userIds: string[] },
): Promise<EndUserOfUserId[]> => runStatement(exec, END_USERS_OF_USER_IDS, pairs);

// ---- activity (event processing) -------------------------------------------------------------

// The three statements of the activity effect (the events' hot path) stay fixed SQL text run as
// named prepared statements, parsed and planned once per connection (bench/RESULTS.md, "Stores of
// flows, content, audiences, translations and end-users"): their rows come as column arrays
// (unnest), and their conflict rules, CTEs and `end_user_of` calls have no query-builder form.

/** An end user seen in a chunk: its tenant, external id or anonymous id, earliest and latest event. */
export interface SeenEndUser {
  tenantId: string;
  /** userId (external id); null for anonymous visitors. */
  ext: string | null;
  anon: string | null;
  /** ISO timestamps. */
  first: string;
  last: string;
}

const UPSERT_SEEN_USERS = `
insert into end_users as e (id, tenant_id, external_id, anonymous_id, traits, first_seen_at, last_seen_at)
select x.id, x.tenant_id, x.ext, x.anon, '{}'::jsonb, x.first, x.last
from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])
  as x (id, tenant_id, ext, anon, first, last)
where exists (select 1 from tenants t where t.id = x.tenant_id)
on conflict (tenant_id, external_id) where external_id is not null do update set
  last_seen_at = greatest(e.last_seen_at, excluded.last_seen_at),
  first_seen_at = least(e.first_seen_at, excluded.first_seen_at),
  anonymous_id = coalesce(e.anonymous_id, excluded.anonymous_id)
where excluded.last_seen_at > e.last_seen_at or excluded.first_seen_at < e.first_seen_at
   or (e.anonymous_id is null and excluded.anonymous_id is not null)`;

const UPSERT_SEEN_ANONYMOUS = `
with x as (
  select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::timestamptz[])
    as x (id, tenant_id, anon, first, last)
  where exists (select 1 from tenants t where t.id = x.tenant_id)
),
resolved as (
  select x.*, (select eu.id from end_user_of(x.tenant_id, null, x.anon) eu) as target
  from x
),
advanced as (
  update end_users e set last_seen_at = greatest(e.last_seen_at, g.last),
                         first_seen_at = least(e.first_seen_at, g.first)
  from (select target, min(first) as first, max(last) as last from resolved where target is not null group by target) g
  where e.id = g.target and (g.last > e.last_seen_at or g.first < e.first_seen_at)
  returning e.id
)
insert into end_users as e (id, tenant_id, anonymous_id, traits, first_seen_at, last_seen_at)
select id, tenant_id, anon, '{}'::jsonb, first, last from resolved where target is null
on conflict (tenant_id, anonymous_id) where anonymous_id is not null and external_id is null do update set
  last_seen_at = greatest(e.last_seen_at, excluded.last_seen_at),
  first_seen_at = least(e.first_seen_at, excluded.first_seen_at)`;

const RECORD_ITEM_STATES = `
with x as (
  select * from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::timestamptz[], $6::timestamptz[])
    as x (tenant_id, ext, anon, item_id, completed, dismissed)
),
resolved as (
  select x.*, (select eu.id from end_user_of(x.tenant_id, x.ext, x.anon) eu) as end_user_id
  from x
)
insert into end_user_item_states as s (tenant_id, end_user_id, item_id, completed_at, dismissed_at, updated_at)
select tenant_id, end_user_id, item_id, min(completed), min(dismissed), now()
from resolved where end_user_id is not null
group by tenant_id, end_user_id, item_id
on conflict (tenant_id, end_user_id, item_id) do update set
  completed_at = coalesce(s.completed_at, excluded.completed_at),
  dismissed_at = coalesce(s.dismissed_at, excluded.dismissed_at),
  updated_at = now()
where (s.completed_at is null and excluded.completed_at is not null)
   or (s.dismissed_at is null and excluded.dismissed_at is not null)`;

const freshId = () => newId();

/**
 * The rows in the order of their keys: every chunk sends the rows it shares with another in the
 * same order, so concurrent processors lock shared rows in the same order and wait for each
 * other instead of deadlocking (sortedByKey).
 */
function inKeyOrder<T>(rows: Iterable<T>, keyOf: (row: T) => string): T[] {
  const entries: [string, T][] = [];
  for (const row of rows) entries.push([keyOf(row), row]);
  return sortedByKey(entries);
}

/**
 * End users with a userId (one row each): each created when missing (traits {}, with its
 * anonymous id) or its first/last seen widened (never narrowed) and its anonymous id set when it
 * had none. Rows of unknown tenants are skipped.
 */
export async function upsertSeenUsers(exec: Executor, rows: readonly SeenEndUser[]): Promise<void> {
  if (rows.length === 0) return;
  await preparedQuery(
    exec,
    UPSERT_SEEN_USERS,
    columnsOf(
      inKeyOrder(rows, (r) => r.tenantId + SEP + r.ext),
      [freshId, 'tenantId', 'ext', 'anon', 'first', 'last'],
    ),
  );
}

/**
 * Visitors with only an anonymous id (one row each): the end user each resolves to
 * (`end_user_of`) has its first/last seen widened, or an anonymous-only end user is created.
 */
export async function upsertSeenAnonymous(exec: Executor, rows: readonly SeenEndUser[]): Promise<void> {
  if (rows.length === 0) return;
  await preparedQuery(
    exec,
    UPSERT_SEEN_ANONYMOUS,
    columnsOf(
      inKeyOrder(rows, (r) => r.tenantId + SEP + r.anon),
      [freshId, 'tenantId', 'anon', 'first', 'last'],
    ),
  );
}

/** A completion or dismissal of an item by the end user of (`ext`, `anon`); ISO timestamps. */
export interface ItemStateEvent {
  tenantId: string;
  ext: string | null;
  anon: string | null;
  itemId: string;
  completed: string | null;
  dismissed: string | null;
}

/**
 * Frequency-cap state: per resolved end user and item, the first completion and the first
 * dismissal are kept (later ones change nothing; several events of one pair are grouped).
 */
export async function recordItemStates(exec: Executor, rows: readonly ItemStateEvent[]): Promise<void> {
  if (rows.length === 0) return;
  const ordered = inKeyOrder(
    rows,
    (r) => `${r.tenantId}${SEP}${r.ext ?? ''}${SEP}${r.anon ?? ''}${SEP}${r.itemId}`,
  );
  await preparedQuery(
    exec,
    RECORD_ITEM_STATES,
    columnsOf(ordered, ['tenantId', 'ext', 'anon', 'itemId', 'completed', 'dismissed']),
  );
}

/** An end user as the export reads it: `at` is `createdAt` as UTC text to the microsecond (the keyset). */
export interface ExportedEndUser {
  at: string;
  id: string;
  externalId: string | null;
  anonymousId: string | null;
  traits: Record<string, unknown>;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/**
 * A page of the tenant's end users created in [from, until), in stored order (created, id),
 * after `after`: one range of `end_users_tenant_created_idx` (migration 0094) per page.
 */
export function findEndUsersForExport(
  exec: Executor,
  tenantId: string,
  range: { from: Date | null; until: Date },
  after: { at: string; id: string } | null,
  limit: number,
): Promise<ExportedEndUser[]> {
  const e = endUsers;
  const where: SQL[] = [eq(e.tenantId, tenantId), lt(e.createdAt, range.until)];
  if (range.from) where.push(gte(e.createdAt, range.from));
  if (after) where.push(sql`(${e.createdAt}, ${e.id}) > (${after.at}::timestamptz, ${after.id}::uuid)`);
  return exec
    .select({
      at: microsIso(e.createdAt),
      id: e.id,
      externalId: e.externalId,
      anonymousId: e.anonymousId,
      traits: e.traits,
      firstSeenAt: e.firstSeenAt,
      lastSeenAt: e.lastSeenAt,
    })
    .from(e)
    .where(and(...where))
    .orderBy(asc(e.createdAt), asc(e.id))
    .limit(limit);
}

// ---- the dashboard's list and detail (GET /api/end-users, /api/end-users/:id) ------------------

const listed = {
  id: endUsers.id,
  userId: endUsers.externalId,
  anonymousId: endUsers.anonymousId,
  traits: endUsers.traits,
  firstSeenAt: endUsers.firstSeenAt,
  lastSeenAt: endUsers.lastSeenAt,
};

export type ListedEndUser = {
  id: string;
  userId: string | null;
  anonymousId: string | null;
  traits: Record<string, unknown>;
  firstSeenAt: Date;
  lastSeenAt: Date;
};

/**
 * The search of the end-user list (docs/end-users.md): case-insensitively, the start of the
 * userId, of the anonymous id, or of the `email` or `name` trait; a uuid also matches the service id.
 */
function searchOf(search: string): SQL {
  const pattern = prefixPattern(search.toLowerCase());
  const e = endUsers;
  const match = [
    sql`lower(${e.externalId}) like ${pattern}`,
    sql`lower(${e.anonymousId}) like ${pattern}`,
    sql`lower(${e.traits} ->> 'email') like ${pattern}`,
    sql`lower(${e.traits} ->> 'name') like ${pattern}`,
  ];
  if (UUID.test(search)) match.push(eq(e.id, search));
  return or(...match)!;
}

/** A page of the tenant's end users, last seen first (then id), matching `search` when given. */
export function listEndUsersPage(
  exec: Executor,
  tenantId: string,
  filter: { search?: string | undefined },
  page: PageRequest,
) {
  const where = and(eq(endUsers.tenantId, tenantId), filter.search ? searchOf(filter.search) : undefined);
  return listPage<ListedEndUser>(
    exec.select(listed).from(endUsers).where(where).orderBy(desc(endUsers.lastSeenAt), desc(endUsers.id)),
    exec.select({ n: count() }).from(endUsers).where(where),
    page,
  );
}

/** A tenant's end user by its service id or userId, as the list shows it; undefined when not this tenant's. */
export async function findEndUser(
  exec: Executor,
  tenantId: string,
  idOrUserId: string,
): Promise<(ListedEndUser & { createdAt: Date }) | undefined> {
  const [row] = await exec
    .select({ ...listed, createdAt: endUsers.createdAt })
    .from(endUsers)
    .where(and(eq(endUsers.tenantId, tenantId), byIdOrUserId(idOrUserId)))
    .orderBy(asc(endUsers.createdAt))
    .limit(1);
  return row;
}

/**
 * The end user's item states (completed, dismissed), latest first, each with the item's kind and
 * name read with them: a flow, a content item (its type slug) or an NPS survey (`nps-surveys`);
 * an item since deleted has none.
 */
export function listItemStatesOf(exec: Executor, tenantId: string, endUserId: string) {
  const s = endUserItemStates;
  return exec
    .select({
      itemId: s.itemId,
      flowName: flows.name,
      contentName: contentItems.name,
      contentType: contentItems.type,
      npsName: npsSurveys.name,
      completedAt: s.completedAt,
      dismissedAt: s.dismissedAt,
    })
    .from(s)
    .leftJoin(flows, and(eq(flows.tenantId, tenantId), eq(flows.id, s.itemId)))
    .leftJoin(contentItems, and(eq(contentItems.tenantId, tenantId), eq(contentItems.id, s.itemId)))
    .leftJoin(npsSurveys, and(eq(npsSurveys.tenantId, tenantId), eq(npsSurveys.id, s.itemId)))
    .where(and(eq(s.tenantId, tenantId), eq(s.endUserId, endUserId)))
    .orderBy(desc(s.updatedAt), asc(s.itemId))
    .limit(500);
}
