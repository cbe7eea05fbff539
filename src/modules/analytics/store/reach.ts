import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { analyticsReach, analyticsUserDays } from '../../../db/schema/index.js';
import { bare, columnList, fixedStatement, runPrepared } from '../../../db/statements.js';

/**
 * The writes of the reach rollup (reach.ts): users' active days (`analytics_user_days`) and the
 * points they make (`analytics_reach`). On the event-processing hot path: four set-based
 * statements a chunk whatever its size, rendered once and run as named prepared statements
 * (bench/RESULTS.md, "Processing per event against the parse-only yardstick, and the reach
 * rollup's known days"). Rows come in key order, so processors lock them in one order.
 */

const p = sql.placeholder;
const u = analyticsUserDays;
const r = analyticsReach;

/** A (tenant, scope, user) of `analytics_user_days`. */
export interface UserDaysKey {
  tenantId: string;
  scope: string;
  userKey: string;
}

type KeyColumns = { tenantIds: string[]; scopes: string[]; userKeys: string[] };
const keyColumns = (keys: readonly UserDaysKey[]): KeyColumns => ({
  tenantIds: keys.map((k) => k.tenantId),
  scopes: keys.map((k) => k.scope),
  userKeys: keys.map((k) => k.userKey),
});
const keysTable = sql`unnest(${p('tenantIds')}::uuid[], ${p('scopes')}::text[], ${p('userKeys')}::text[]) as x (t, s, u)`;

const insertPlaceholdersStatement = fixedStatement<never, KeyColumns>(
  sql`insert into ${u} ${columnList([u.tenantId, u.scope, u.userKey, u.origin, u.days])}
  select t, s, u, date '1970-01-01', B'' from ${keysTable}
  on conflict do nothing`,
);

/** A row of no days for each user that has none yet (so that a new user is locked too). */
export async function insertUserDaysPlaceholders(tx: Executor, keys: readonly UserDaysKey[]): Promise<void> {
  await runPrepared(tx, insertPlaceholdersStatement, keyColumns(keys));
}

/** A user's active days as stored: `origin` an epoch day, `days` a '0'/'1' string from it. */
export type LockedUserDays = {
  tenant_id: string;
  scope: string;
  user_key: string;
  origin: number;
  days: string;
};

// ORDER BY then FOR UPDATE: rows are locked in key order, so processors never deadlock here.
const lockStatement = fixedStatement<LockedUserDays, KeyColumns>(
  sql`select ${u.tenantId}, ${u.scope}, ${u.userKey}, ${u.origin} - date '1970-01-01' as origin, ${u.days}::text as days
  from ${u} join ${keysTable} on ${u.tenantId} = x.t and ${u.scope} = x.s and ${u.userKey} = x.u
  order by ${u.tenantId}, ${u.scope}, ${u.userKey}
  for update of ${u}`,
);

/** Locks the users' rows (in key order) and reads their days. */
export function lockUserDays(tx: Executor, keys: readonly UserDaysKey[]): Promise<LockedUserDays[]> {
  return runPrepared(tx, lockStatement, keyColumns(keys));
}

const updateStatement = fixedStatement<never, KeyColumns & { origins: string[]; days: string[] }>(
  sql`update ${u} set ${bare(u.origin)} = x.o, ${bare(u.days)} = x.b
  from unnest(${p('tenantIds')}::uuid[], ${p('scopes')}::text[], ${p('userKeys')}::text[], ${p('origins')}::date[],
    ${p('days')}::varbit[]) as x (t, s, u, o, b)
  where ${u.tenantId} = x.t and ${u.scope} = x.s and ${u.userKey} = x.u`,
);

/** Rewrites users' days (`origin`: YYYY-MM-DD; `bits`: a '0'/'1' string from it). */
export async function updateUserDays(
  tx: Executor,
  rows: readonly (UserDaysKey & { origin: string; bits: string })[],
): Promise<void> {
  await runPrepared(tx, updateStatement, {
    ...keyColumns(rows),
    origins: rows.map((row) => row.origin),
    days: rows.map((row) => row.bits),
  });
}

const upsertPointsStatement = fixedStatement<
  never,
  { tenantIds: string[]; scopes: string[]; days: string[]; prevDays: string[]; users: number[] }
>(
  sql`insert into ${r} ${columnList([r.tenantId, r.scope, r.day, r.prevDay, r.users])}
  select * from unnest(${p('tenantIds')}::uuid[], ${p('scopes')}::text[], ${p('days')}::date[], ${p('prevDays')}::date[],
    ${p('users')}::bigint[])
  on conflict ${columnList([r.tenantId, r.scope, r.day, r.prevDay])} do update set
    ${bare(r.users)} = ${r.users} + excluded.${bare(r.users)}`,
);

/** Adds `n` to the points (tenant, scope, day, previous active day; YYYY-MM-DD or '-infinity'). */
export async function addReachPoints(
  tx: Executor,
  points: readonly { tenantId: string; scope: string; day: string; prev: string; n: number }[],
): Promise<void> {
  await runPrepared(tx, upsertPointsStatement, {
    tenantIds: points.map((x) => x.tenantId),
    scopes: points.map((x) => x.scope),
    days: points.map((x) => x.day),
    prevDays: points.map((x) => x.prev),
    users: points.map((x) => x.n),
  });
}
