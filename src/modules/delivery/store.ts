import { and, eq, gt, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { DatabaseHandle, Executor } from '../../db/client.js';
import { jsonValue } from '../../db/raw.js';
import {
  endUserItemStates,
  endUserServes,
  endUsers,
  locales,
  tenantDeliveryPolicies,
  tenantDeliveryVersions,
  tenants,
} from '../../db/schema/index.js';
import { columnList, fixedStatement, runPrepared, runStatement } from '../../db/statements.js';

/** What a contributor's user-state fragment is written in (contract.ts). */
export type SqlExpression = SQL;

/** A delivery contributor as the lookup statement sees it (contract.ts `DeliveryContributor`). */
interface StateContributor {
  name: string;
  userState?: { sql(tenant: SQL, endUser: SQL): SQL; parse(value: unknown): unknown } | undefined;
}

// ---- the snapshot -----------------------------------------------------------------------------

/** The tenant's delivery version (0 before its first change) and settings, in the snapshot's transaction. */
export async function readSnapshotHead(tx: Executor, tenantId: string) {
  const [row] = await tx
    .select({
      version: sql<number>`coalesce((select ${tenantDeliveryVersions.version} from ${tenantDeliveryVersions}
        where ${tenantDeliveryVersions.tenantId} = ${tenants.id}), 0)::float8`.mapWith(Number),
      settings: tenants.settings,
      policy: sql<unknown>`(select ${tenantDeliveryPolicies.policy} from ${tenantDeliveryPolicies}
        where ${tenantDeliveryPolicies.tenantId} = ${tenants.id})`,
    })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row;
}

export async function listLocaleCodes(tx: Executor, tenantId: string): Promise<string[]> {
  const rows = await tx.select({ code: locales.code }).from(locales).where(eq(locales.tenantId, tenantId));
  return rows.map((r) => r.code);
}

// ---- the session's one lookup statement ---------------------------------------------------------

type EndUser = typeof endUsers.$inferSelect;

/** One row of the lookup statement, decoded. */
export interface SessionUserRow {
  /** Null when the session has neither userId nor anonymousId, or its end user does not exist yet. */
  endUserId: string | null;
  externalId: EndUser['externalId'];
  traits: Record<string, unknown>;
  completed: string[] | null;
  dismissed: string[] | null;
  version: number;
  /** Each stateful contributor's column as read (`parse` of it), by name; null without an end user. */
  states: Map<string, unknown>;
}

/** Who a session is (the request's tenant, userId and anonymousId). */
export interface SessionKey {
  tenantId: string;
  ext: string | null;
  anon: string | null;
}

interface LookupRow {
  i?: number;
  id: EndUser['id'] | null;
  external_id: EndUser['externalId'];
  /** Text when the prepared statement reads it as such (db/raw.ts `jsonValue`). */
  traits: EndUser['traits'] | string | null;
  version: number | string;
  completed: string[] | null;
  dismissed: string[] | null;
  [state: string]: unknown;
}

/** The end user of a session row: `end_user_of` (migration 0021), the one resolution rule. */
const u = alias(endUsers, 'u');
/** The session's request row: its tenant, userId and anonymousId. */
const request = { tenantId: sql`r.tenant_id`, ext: sql`r.ext`, anon: sql`r.anon` };
const states = endUserItemStates;
const versions = tenantDeliveryVersions;

/**
 * The lookup statement over request rows `from` (alias `r`): the tenant's delivery version, the
 * end user, its item states and each contributor's user-state column (`s0`, `s1`, …), composed of
 * the contributors' fragments and rendered once. `i` adds the row's ordinal (`r.i`).
 */
function lookupStatement(from: SQL, stateful: readonly StateContributor[], ordinal: boolean): SQL {
  const stateColumns = stateful.map(
    (c, i) =>
      sql`, case when ${u.id} is null then null else ${c.userState!.sql(request.tenantId, sql`${u.id}`)} end as ${sql.identifier(`s${i}`)}`,
  );
  return sql`select ${ordinal ? sql`r.i::int as i, ` : sql``}coalesce((select ${versions.version} from ${versions}
      where ${versions.tenantId} = ${request.tenantId}), 0)::float8 as version,
    ${u.id}, ${u.externalId}, ${u.traits}, st.completed, st.dismissed${sql.join(stateColumns)}
    from ${from}
    left join lateral end_user_of(${request.tenantId}, ${request.ext}, ${request.anon}) ${u} on true
    left join lateral (
      select array_agg(${states.itemId}::text) filter (where ${states.completedAt} is not null) as completed,
             array_agg(${states.itemId}::text) filter (where ${states.dismissedAt} is not null) as dismissed
      from ${states} where ${states.tenantId} = ${request.tenantId} and ${states.endUserId} = ${u.id}
    ) st on true`;
}

/**
 * End users that do not exist yet (a new userId, or a new anonymous visitor: traits {}). ON
 * CONFLICT DO NOTHING: one created meanwhile by another transaction is not returned and is read
 * again (that transaction has committed by then: the conflict check waits for it). Raw: unnest
 * of column arrays, one statement for any number.
 */
const insertEndUsersStatement = fixedStatement<
  Pick<LookupRow, 'id' | 'external_id' | 'traits'>,
  {
    ids: string[];
    tenantIds: string[];
    exts: (string | null)[];
    anons: (string | null)[];
    at: string;
  }
>(sql`insert into ${endUsers} ${columnList([
  endUsers.id,
  endUsers.tenantId,
  endUsers.externalId,
  endUsers.anonymousId,
  endUsers.traits,
  endUsers.firstSeenAt,
  endUsers.lastSeenAt,
])}
  select x.id, x.tenant_id, x.ext, x.anon, '{}'::jsonb, ${sql.placeholder('at')}::timestamptz, ${sql.placeholder('at')}::timestamptz
  from unnest(${sql.placeholder('ids')}::uuid[], ${sql.placeholder('tenantIds')}::uuid[],
              ${sql.placeholder('exts')}::text[], ${sql.placeholder('anons')}::text[]) as x (id, tenant_id, ext, anon)
  on conflict do nothing
  returning ${endUsers.id}, ${endUsers.externalId}, ${endUsers.traits}`);

/**
 * The session lookup's statements for these contributors, built once per app. The hot path of
 * `POST /api/sdk/session`: named prepared statements (planned once per connection), one for a
 * single request and one for a batch (bench/RESULTS.md, "Stores of delivery, experiments and journeys").
 */
export function sessionLookupStatements(contributors: readonly StateContributor[]) {
  const stateful = contributors.filter((c) => c.userState);
  const one = fixedStatement<LookupRow, { tenantId: string; ext: string | null; anon: string | null }>(
    lookupStatement(
      sql`(select ${sql.placeholder('tenantId')}::uuid as tenant_id, ${sql.placeholder('ext')}::text as ext,
                  ${sql.placeholder('anon')}::text as anon) r`,
      stateful,
      false,
    ),
  );
  const many = fixedStatement<
    LookupRow,
    { tenantIds: string[]; exts: (string | null)[]; anons: (string | null)[] }
  >(
    lookupStatement(
      sql`unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('exts')}::text[],
                 ${sql.placeholder('anons')}::text[]) with ordinality as r (tenant_id, ext, anon, i)`,
      stateful,
      true,
    ),
  );

  const decode = (row: LookupRow): SessionUserRow => {
    const traits = jsonValue(row.traits);
    const states = new Map<string, unknown>();
    stateful.forEach((c, i) => {
      states.set(c.name, row.id === null ? null : c.userState!.parse(row[`s${i}`] ?? null));
    });
    return {
      endUserId: row.id,
      externalId: row.external_id,
      traits: traits && typeof traits === 'object' ? (traits as Record<string, unknown>) : {},
      completed: row.completed,
      dismissed: row.dismissed,
      version: Number(row.version),
      states,
    };
  };

  return {
    stateful,
    /** The rows of `keys`, index-aligned. */
    async read(database: DatabaseHandle, keys: readonly SessionKey[]): Promise<SessionUserRow[]> {
      if (keys.length === 1) {
        const [row] = await runPrepared(database.db, one, keys[0]!);
        return [decode(row!)];
      }
      const rows = await runPrepared(database.db, many, {
        tenantIds: keys.map((k) => k.tenantId),
        exts: keys.map((k) => k.ext),
        anons: keys.map((k) => k.anon),
      });
      const out = new Array<SessionUserRow>(keys.length);
      for (const row of rows) out[Number(row.i) - 1] = decode(row);
      return out;
    },

    /**
     * Creates the end users of `keys` (ids given), in one statement; answers the rows created (one
     * a concurrent transaction created first is missing: read it again). A new end user has no
     * item states and every contributor's empty state.
     */
    async insertEndUsers(
      database: DatabaseHandle,
      rows: { id: string; key: SessionKey }[],
      at: Date,
    ): Promise<Map<string, SessionUserRow>> {
      const created = await runStatement(database.db, insertEndUsersStatement, {
        ids: rows.map((r) => r.id),
        tenantIds: rows.map((r) => r.key.tenantId),
        exts: rows.map((r) => r.key.ext),
        anons: rows.map((r) => r.key.anon),
        at: at.toISOString(),
      });
      return new Map(
        created.map((r) => [r.id!, decode({ ...r, version: 0, completed: null, dismissed: null })]),
      );
    },
  };
}
export type SessionLookupStatements = ReturnType<typeof sessionLookupStatements>;

// ---- the delivery policy and the serve ledger ---------------------------------------------------

export async function readDeliveryPolicy(exec: Executor, tenantId: string) {
  const [row] = await exec
    .select({ policy: tenantDeliveryPolicies.policy, updatedAt: tenantDeliveryPolicies.updatedAt })
    .from(tenantDeliveryPolicies)
    .where(eq(tenantDeliveryPolicies.tenantId, tenantId));
  return row ?? null;
}

/** Upserts the tenant's policy row (the caller's transaction; the trigger bumps the delivery version). */
export async function writeDeliveryPolicy(
  exec: Executor,
  tenantId: string,
  policy: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await exec
    .insert(tenantDeliveryPolicies)
    .values({ tenantId, policy, updatedAt: at })
    .onConflictDoUpdate({ target: tenantDeliveryPolicies.tenantId, set: { policy, updatedAt: at } });
}

/**
 * Locks the end users' rows (FOR UPDATE, in id order: no deadlock between two batches): the
 * sessions of one user that apply the policy run one after the other from here to commit.
 */
export async function lockEndUsers(exec: Executor, tenantIds: string[], endUserIds: string[]): Promise<void> {
  const ids = [...new Set(endUserIds)].sort();
  await exec.execute(
    sql`select ${endUsers.id} from ${endUsers} where ${endUsers.id} = any(${sql.param(ids)}::uuid[])
      and ${endUsers.tenantId} = any(${sql.param([...new Set(tenantIds)])}::uuid[])
      order by ${endUsers.id} for update`,
  );
}

export interface ServedRow {
  endUserId: string;
  itemId: string;
  scopes: string[];
  lastAt: Date;
}

/** The ledger rows of these end users last served after `since`. */
export async function readServes(
  exec: Executor,
  tenantId: string,
  endUserIds: string[],
  since: Date,
): Promise<ServedRow[]> {
  return exec
    .select({
      endUserId: endUserServes.endUserId,
      itemId: endUserServes.itemId,
      scopes: endUserServes.scopes,
      lastAt: endUserServes.lastAt,
    })
    .from(endUserServes)
    .where(
      and(
        eq(endUserServes.tenantId, tenantId),
        inArray(endUserServes.endUserId, endUserIds),
        gt(endUserServes.lastAt, since),
      ),
    );
}

/** When these end users dismissed items (for `afterDismissDays`). */
export async function readDismissals(exec: Executor, tenantId: string, endUserIds: string[]) {
  return exec
    .select({
      endUserId: endUserItemStates.endUserId,
      itemId: endUserItemStates.itemId,
      dismissedAt: endUserItemStates.dismissedAt,
    })
    .from(endUserItemStates)
    .where(
      and(
        eq(endUserItemStates.tenantId, tenantId),
        inArray(endUserItemStates.endUserId, endUserIds),
        isNotNull(endUserItemStates.dismissedAt),
      ),
    );
}

/** Records serves (last_at moves forward only). */
export async function recordServes(
  exec: Executor,
  rows: { tenantId: string; endUserId: string; itemId: string; scopes: string[]; at: Date }[],
): Promise<void> {
  if (rows.length === 0) return;
  // One row per key in one statement (ON CONFLICT may not touch a row twice).
  const byKey = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    const key = `${r.tenantId}:${r.endUserId}:${r.itemId}`;
    const seen = byKey.get(key);
    if (!seen || seen.at < r.at) byKey.set(key, r);
  }
  await exec
    .insert(endUserServes)
    .values(
      [...byKey.values()].map((r) => ({
        tenantId: r.tenantId,
        endUserId: r.endUserId,
        itemId: r.itemId,
        scopes: r.scopes,
        firstAt: r.at,
        lastAt: r.at,
      })),
    )
    .onConflictDoUpdate({
      target: [endUserServes.tenantId, endUserServes.endUserId, endUserServes.itemId],
      set: {
        scopes: sql`excluded.scopes`,
        lastAt: sql`greatest(${endUserServes.lastAt}, excluded.last_at)`,
      },
    });
}

/**
 * Exposures reported by the SDK (FLOW_STARTED, CONTENT_RENDERED) count like serves: one
 * statement per chunk that has any, for tenants with a policy only (the join), end users by the
 * resolution rule (`end_user_of`), items that exist, with their cap scopes as the engine names
 * them (engine/policy.ts; items.ts `withPolicyFields`). A row served before keeps its scopes.
 */
const RECORD_EXPOSURES = fixedStatement<
  Record<string, never>,
  { tenantIds: string[]; exts: (string | null)[]; anons: (string | null)[]; itemIds: string[]; ats: string[] }
>(sql`insert into ${endUserServes} ${columnList([
  endUserServes.tenantId,
  endUserServes.endUserId,
  endUserServes.itemId,
  endUserServes.scopes,
  endUserServes.firstAt,
  endUserServes.lastAt,
])}
  select x.tenant_id, u.id, x.item_id, s.scopes, max(x.at), max(x.at)
  from unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('exts')}::text[], ${sql.placeholder('anons')}::text[],
              ${sql.placeholder('itemIds')}::uuid[], ${sql.placeholder('ats')}::timestamptz[]) as x (tenant_id, ext, anon, item_id, at)
  join ${tenantDeliveryPolicies} p on p.tenant_id = x.tenant_id
  cross join lateral end_user_of(x.tenant_id, x.ext, x.anon) u
  cross join lateral (
    select array['all', 'flows'] || case when exists (select 1 from flow_steps fs where fs.flow_id = f.id
             and fs.type in ('MODAL', 'VIDEO', 'FORM')) then array['modal-like'] else array[]::text[] end as scopes
      from flows f where f.id = x.item_id and f.tenant_id = x.tenant_id
    union all
    select array['all', c.type] || case when c.type = 'announcements' and c.body->>'type' = 'MODAL'
             then array['modal-like'] else array[]::text[] end
      from content_items c where c.id = x.item_id and c.tenant_id = x.tenant_id
    union all
    select array['all', 'nps-surveys'] from nps_surveys n where n.id = x.item_id and n.tenant_id = x.tenant_id
  ) s
  group by x.tenant_id, u.id, x.item_id, s.scopes
  on conflict (tenant_id, end_user_id, item_id) do update
    set last_at = greatest(${endUserServes.lastAt}, excluded.last_at)`);

export async function recordExposures(
  exec: Executor,
  rows: { tenantId: string; ext: string | null; anon: string | null; itemId: string; at: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await runStatement(exec, RECORD_EXPOSURES, {
    tenantIds: rows.map((r) => r.tenantId),
    exts: rows.map((r) => r.ext),
    anons: rows.map((r) => r.anon),
    itemIds: rows.map((r) => r.itemId),
    ats: rows.map((r) => r.at),
  });
}

/**
 * The ledger rows of an anonymous end user merged into an identified one (identify): moved to
 * `toId`, keeping the earlier first and the later last serve of an item both were served.
 */
export async function moveServes(
  tx: Executor,
  merge: { tenantId: string; fromId: string; toId: string },
): Promise<void> {
  await tx.execute(sql`insert into ${endUserServes} ${columnList([
    endUserServes.tenantId,
    endUserServes.endUserId,
    endUserServes.itemId,
    endUserServes.scopes,
    endUserServes.firstAt,
    endUserServes.lastAt,
  ])}
    select tenant_id, ${merge.toId}::uuid, item_id, scopes, first_at, last_at from ${endUserServes}
    where ${endUserServes.tenantId} = ${merge.tenantId} and ${endUserServes.endUserId} = ${merge.fromId}
    on conflict (tenant_id, end_user_id, item_id) do update
      set first_at = least(${endUserServes.firstAt}, excluded.first_at),
          last_at = greatest(${endUserServes.lastAt}, excluded.last_at)`);
  await tx
    .delete(endUserServes)
    .where(and(eq(endUserServes.tenantId, merge.tenantId), eq(endUserServes.endUserId, merge.fromId)));
}
