import type { DatabaseHandle } from '../../db/client.js';
import { preparedQuery } from '../../db/prepared.js';
import { createBatcher } from '../../platform/batcher.js';
import { newId } from '../../platform/ids.js';

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
}

const EMPTY: ReadonlySet<string> = new Set();

const STATES = `
left join lateral (
  select array_agg(s.item_id::text) filter (where s.completed_at is not null) as completed,
         array_agg(s.item_id::text) filter (where s.dismissed_at is not null) as dismissed
  from end_user_item_states s
  where s.tenant_id = $1 and s.end_user_id = u.id
) st on true`;
const VERSION =
  '(select coalesce((select version from tenant_delivery_versions where tenant_id = $1), 0)::float8 as version) v';

/** By anonymousId: the anonymous-only row first, else the identified user most recently seen with it. */
const BY_ANON = `select eu.id, eu.external_id, eu.traits from end_users eu
  where eu.tenant_id = $1 and eu.anonymous_id = $2
  order by (eu.external_id is null) desc, eu.last_seen_at desc, eu.id desc limit 1`;

/** One request (the common case at rest, and under load when every request is the same user). */
const ONE = {
  byUser: `select v.version, u.id, u.external_id, u.traits, st.completed, st.dismissed from ${VERSION}
    left join lateral (select eu.id, eu.external_id, eu.traits from end_users eu
      where eu.tenant_id = $1 and eu.external_id = $2) u on true ${STATES}`,
  byAnon: `select v.version, u.id, u.external_id, u.traits, st.completed, st.dismissed from ${VERSION}
    left join lateral (${BY_ANON}) u on true ${STATES}`,
  nobody: `select v.version, null as id, null as external_id, null as traits, null as completed, null as dismissed from ${VERSION}`,
};

/** Several requests in one read-only statement (index-aligned through `i`). */
const MANY = `
select r.i::int as i, u.id, u.external_id, u.traits,
       coalesce((select v.version from tenant_delivery_versions v where v.tenant_id = r.tenant_id), 0)::float8 as version,
       st.completed, st.dismissed
from unnest($1::uuid[], $2::text[], $3::text[]) with ordinality as r (tenant_id, ext, anon, i)
left join lateral (
  (select eu.id, eu.external_id, eu.traits from end_users eu
    where r.ext is not null and eu.tenant_id = r.tenant_id and eu.external_id = r.ext)
  union all
  (select eu.id, eu.external_id, eu.traits from end_users eu
    where r.ext is null and r.anon is not null and eu.tenant_id = r.tenant_id and eu.anonymous_id = r.anon
    order by (eu.external_id is null) desc, eu.last_seen_at desc, eu.id desc
    limit 1)
  limit 1
) u on true
left join lateral (
  select array_agg(s.item_id::text) filter (where s.completed_at is not null) as completed,
         array_agg(s.item_id::text) filter (where s.dismissed_at is not null) as dismissed
  from end_user_item_states s
  where s.tenant_id = r.tenant_id and s.end_user_id = u.id
) st on true`;

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

interface Row {
  i?: number;
  id: string | null;
  external_id: string | null;
  traits: Record<string, unknown> | string | null;
  version: number | string;
  completed: string[] | null;
  dismissed: string[] | null;
}

interface Key {
  tenantId: string;
  ext: string | null;
  anon: string | null;
}

const keyOf = (w: SessionWho) =>
  w.userId ? `${w.tenantId}\u0000u\u0000${w.userId}` : `${w.tenantId}\u0000a\u0000${w.anonymousId ?? ''}`;

function toLookup(row: Row, version: number): SessionLookup {
  const traits = typeof row.traits === 'string' ? JSON.parse(row.traits) : row.traits;
  return {
    endUserId: row.id,
    externalId: row.external_id,
    traits: traits && typeof traits === 'object' ? (traits as Record<string, unknown>) : {},
    completed: row.completed?.length ? new Set(row.completed) : EMPTY,
    dismissed: row.dismissed?.length ? new Set(row.dismissed) : EMPTY,
    version,
  };
}

async function read(database: DatabaseHandle, keys: Key[]): Promise<SessionLookup[]> {
  if (keys.length === 1) {
    const k = keys[0]!;
    const [row] = k.ext
      ? await preparedQuery<Row>(database.db, ONE.byUser, [k.tenantId, k.ext])
      : k.anon
        ? await preparedQuery<Row>(database.db, ONE.byAnon, [k.tenantId, k.anon])
        : await preparedQuery<Row>(database.db, ONE.nobody, [k.tenantId]);
    return [toLookup(row!, Number(row!.version))];
  }
  const rows = await preparedQuery<Row>(database.db, MANY, [
    keys.map((k) => k.tenantId),
    keys.map((k) => k.ext),
    keys.map((k) => k.anon),
  ]);
  const out = new Array<SessionLookup>(keys.length);
  for (const row of rows) out[Number(row.i) - 1] = toLookup(row, Number(row.version));
  return out;
}

/** Resolves a batch of session requests: one read-only statement; one insert only for new end users. */
async function lookupMany(database: DatabaseHandle, who: SessionWho[]): Promise<SessionLookup[]> {
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
  const found = await read(database, keys);

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
      if (row) found[at] = toLookup({ ...row, completed: null, dismissed: null }, found[at]!.version);
      else raced.push(at);
    });
    if (raced.length > 0) {
      const again = await read(
        database,
        raced.map((at) => keys[at]!),
      );
      raced.forEach((at, j) => {
        found[at] = again[j]!;
      });
    }
  }
  return slot.map((at) => found[at]!);
}

/** Session lookups, coalesced: concurrent sessions share one statement. */
export function createSessionLookup(database: DatabaseHandle) {
  const batcher = createBatcher<SessionWho, SessionLookup>({
    maxBatch: 500,
    run: (who) => lookupMany(database, who),
  });
  return (who: SessionWho) => batcher.load(who);
}
export type SessionLookupFn = ReturnType<typeof createSessionLookup>;
