import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { jsonValue, sqlRows } from '../../../db/raw.js';
import { endUsers } from '../../../db/schema/index.js';
import { fixedStatement, runPrepared } from '../../../db/statements.js';

/**
 * What the journeys runtime reads of end users (the end-users module's table): who an event or a
 * manual enrollment names (`end_user_of`, migration 0021, the one resolution rule), and the
 * rule context of the users whose enrollments a timer steps.
 */

export type EndUserFacts = Pick<typeof endUsers.$inferSelect, 'id' | 'externalId' | 'traits'>;

const u = endUsers;

const resolveStatement = fixedStatement<
  { i: string; id: string; externalId: string | null; traits: unknown },
  { tenantIds: string[]; exts: (string | null)[]; anons: (string | null)[] }
>(
  sql`select p.i, u.id, u.external_id as "externalId", u.traits
    from unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('exts')}::text[], ${sql.placeholder('anons')}::text[])
      with ordinality as p (t, ext, anon, i)
    cross join lateral end_user_of(p.t, p.ext, p.anon) u`,
);

/**
 * The end users of an event chunk's senders (index-aligned with the arrays; an unknown sender is
 * missing). The event effect's: prepared.
 */
export async function resolveEndUsers(
  tx: Executor,
  who: { tenantIds: string[]; exts: (string | null)[]; anons: (string | null)[] },
): Promise<(EndUserFacts | undefined)[]> {
  const rows = await runPrepared(tx, resolveStatement, who);
  const out = new Array<EndUserFacts | undefined>(who.tenantIds.length);
  for (const r of rows) {
    out[Number(r.i) - 1] = {
      id: r.id,
      externalId: r.externalId,
      traits: jsonValue<Record<string, unknown>>(r.traits) ?? {},
    };
  }
  return out;
}

/** The end user a userId or anonymousId names in the tenant, or undefined. */
export async function findEndUserOf(
  exec: Executor,
  tenantId: string,
  ext: string | null,
  anon: string | null,
): Promise<EndUserFacts | undefined> {
  const [row] = await sqlRows<EndUserFacts>(
    exec,
    sql`select u.id, u.external_id as "externalId", u.traits from end_user_of(${tenantId}, ${ext}, ${anon}) u`,
  );
  return row && { ...row, traits: jsonValue<Record<string, unknown>>(row.traits) ?? {} };
}

/** End users by id, any tenant's (the timer job steps enrollments of every tenant). */
export async function listEndUsersById(tx: Executor, ids: string[]): Promise<EndUserFacts[]> {
  if (ids.length === 0) return [];
  return tx
    .select({ id: u.id, externalId: u.externalId, traits: u.traits })
    .from(u)
    .where(sql`${u.id} = any(${sql.param(ids)}::uuid[])`);
}
