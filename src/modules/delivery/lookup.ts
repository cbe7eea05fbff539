import type { DatabaseHandle } from '../../db/client.js';
import { preparedQuery } from '../../db/prepared.js';
import { jsonValue } from '../../db/raw.js';
import { createBatcher } from '../../platform/batcher.js';
import { newId } from '../../platform/ids.js';
import type { DeliveryContributor } from './contract.js';

/** Who opens a session: the tenant's userId and/or the SDK's anonymousId (both optional). */
export interface SessionWho {
  tenantId: string;
  userId?: string | undefined;
  anonymousId?: string | undefined;
  /** created_at / first seen of an end user created by this lookup. */
  now: Date;
}

/** Everything a session needs from the database, read in one statement. */
export interface SessionLookup {
  /** The end user (null for a session with neither userId nor anonymousId). */
  endUserId: string | null;
  /** The end user's userId (external id): the request's, or that of the user an anonymousId is linked to. */
  externalId: string | null;
  traits: Record<string, unknown>;
  completed: ReadonlySet<string>;
  dismissed: ReadonlySet<string>;
  /** The tenant's delivery version (0 before its first change). */
  version: number;
  /** Each contributor's per-user state (contributors with `userState`), by name: `parse` of the column, null without an end user. */
  states: Map<string, unknown>;
}

const EMPTY: ReadonlySet<string> = new Set();

interface Row {
  i?: number;
  id: string | null;
  external_id: string | null;
  traits: Record<string, unknown> | string | null;
  version: number | string;
  completed: string[] | null;
  dismissed: string[] | null;
  [state: string]: unknown;
}

interface Key {
  tenantId: string;
  ext: string | null;
  anon: string | null;
}

/**
 * The statements, built once per app from its contributors (each adds its user-state column).
 * The end user comes from `end_user_of` (migration 0021), the one resolution rule.
 */
function statements(contributors: readonly DeliveryContributor[]) {
  const stateful = contributors.filter((c) => c.userState);
  const stateColumns = (tenant: string) =>
    stateful
      .map(
        (c, i) => `, case when u.id is null then null else ${c.userState!.sql(tenant, 'u.id')} end as s${i}`,
      )
      .join('');
  const states = `left join lateral (
    select array_agg(s.item_id::text) filter (where s.completed_at is not null) as completed,
           array_agg(s.item_id::text) filter (where s.dismissed_at is not null) as dismissed
    from end_user_item_states s where s.tenant_id = TENANT and s.end_user_id = u.id
  ) st on true`;
  const version = (tenant: string) =>
    `coalesce((select v.version from tenant_delivery_versions v where v.tenant_id = ${tenant}), 0)::float8 as version`;
  return {
    stateful,
    /** One request (the common case at rest, and under load when every request is the same user). */
    one: `select ${version('$1')}, u.id, u.external_id, u.traits, st.completed, st.dismissed${stateColumns('$1')}
      from (select 1) one left join lateral end_user_of($1, $2, $3) u on true
      ${states.replace('TENANT', '$1')}`,
    /** Several requests in one read-only statement (index-aligned through `i`). */
    many: `select r.i::int as i, ${version('r.tenant_id')}, u.id, u.external_id, u.traits, st.completed, st.dismissed${stateColumns('r.tenant_id')}
      from unnest($1::uuid[], $2::text[], $3::text[]) with ordinality as r (tenant_id, ext, anon, i)
      left join lateral end_user_of(r.tenant_id, r.ext, r.anon) u on true
      ${states.replace('TENANT', 'r.tenant_id')}`,
  };
}

/**
 * End users that do not exist yet (a new userId, or a new anonymous visitor: traits {}). ON
 * CONFLICT DO NOTHING: one created meanwhile by another transaction is not returned and is read
 * again (that transaction has committed by then: the conflict check waits for it).
 */
const CREATE = `
insert into end_users (id, tenant_id, external_id, anonymous_id, traits, first_seen_at, last_seen_at)
select x.id, x.tenant_id, x.ext, x.anon, '{}'::jsonb, $5::timestamptz, $5::timestamptz
from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) as x (id, tenant_id, ext, anon)
on conflict do nothing
returning id, external_id, traits`;

const keyOf = (w: SessionWho) =>
  w.userId ? `${w.tenantId}\u0000u\u0000${w.userId}` : `${w.tenantId}\u0000a\u0000${w.anonymousId ?? ''}`;

/**
 * Session lookups, coalesced: concurrent sessions share one read-only statement (an INSERT only
 * for new end users). Each contributor's user state is a column of that statement.
 */
export function createSessionLookup(database: DatabaseHandle, contributors: readonly DeliveryContributor[]) {
  const sql = statements(contributors);

  function toLookup(row: Row): SessionLookup {
    const traits = jsonValue(row.traits);
    const states = new Map<string, unknown>();
    sql.stateful.forEach((c, i) => {
      states.set(c.name, row.id === null ? null : c.userState!.parse(row[`s${i}`] ?? null));
    });
    return {
      endUserId: row.id,
      externalId: row.external_id,
      traits: traits && typeof traits === 'object' ? (traits as Record<string, unknown>) : {},
      completed: row.completed?.length ? new Set(row.completed) : EMPTY,
      dismissed: row.dismissed?.length ? new Set(row.dismissed) : EMPTY,
      version: Number(row.version),
      states,
    };
  }

  async function read(keys: Key[]): Promise<SessionLookup[]> {
    if (keys.length === 1) {
      const k = keys[0]!;
      const [row] = await preparedQuery<Row>(database.db, sql.one, [k.tenantId, k.ext, k.anon]);
      return [toLookup(row!)];
    }
    const rows = await preparedQuery<Row>(database.db, sql.many, [
      keys.map((k) => k.tenantId),
      keys.map((k) => k.ext),
      keys.map((k) => k.anon),
    ]);
    const out = new Array<SessionLookup>(keys.length);
    for (const row of rows) out[Number(row.i) - 1] = toLookup(row);
    return out;
  }

  /** Resolves a batch of session requests: one read-only statement; one insert only for new end users. */
  async function lookupMany(who: SessionWho[]): Promise<SessionLookup[]> {
    // Identical requests of one batch (the same user in several tabs) share one lookup.
    const index = new Map<string, number>();
    const keys: Key[] = [];
    const slot = new Array<number>(who.length);
    let now = who[0]!.now;
    for (let i = 0; i < who.length; i++) {
      const w = who[i]!;
      const key = keyOf(w);
      let at = index.get(key);
      if (at === undefined) {
        at = keys.length;
        index.set(key, at);
        keys.push({ tenantId: w.tenantId, ext: w.userId ?? null, anon: w.anonymousId ?? null });
        if (w.now > now) now = w.now;
      }
      slot[i] = at;
    }
    const found = await read(keys);

    const missing: number[] = [];
    for (let at = 0; at < keys.length; at++) {
      if (found[at]!.endUserId === null && (keys[at]!.ext !== null || keys[at]!.anon !== null))
        missing.push(at);
    }
    if (missing.length > 0) {
      const ids = missing.map(() => newId());
      const created = await database.query<Row>(CREATE, [
        ids,
        missing.map((at) => keys[at]!.tenantId),
        missing.map((at) => keys[at]!.ext),
        missing.map((at) => keys[at]!.anon),
        now.toISOString(),
      ]);
      const byId = new Map(created.map((r) => [r.id, r]));
      const raced: number[] = [];
      missing.forEach((at, j) => {
        const row = byId.get(ids[j]!);
        // A new end user has no item states and every contributor's empty state.
        if (row)
          found[at] = toLookup({ ...row, completed: null, dismissed: null, version: found[at]!.version });
        else raced.push(at);
      });
      if (raced.length > 0) {
        const again = await read(raced.map((at) => keys[at]!));
        raced.forEach((at, j) => {
          found[at] = again[j]!;
        });
      }
    }
    return slot.map((at) => found[at]!);
  }

  const batcher = createBatcher<SessionWho, SessionLookup>({ maxBatch: 500, run: lookupMany });
  return (who: SessionWho) => batcher.load(who);
}
export type SessionLookupFn = ReturnType<typeof createSessionLookup>;
