import type { Executor } from '../../db/client.js';
import { preparedQuery } from '../../db/prepared.js';
import { columnsOf, SEP, sortedByKey } from '../../db/raw.js';
import { newId } from '../../platform/ids.js';
import type { EventEffect, ProcessedBatch } from '../events/index.js';
import { itemStateOf } from './item-states.js';

/**
 * End-user activity of processed events, set-based: at most three statements per chunk,
 * whatever its size.
 *
 * 1. Events with a userId: the end user (tenant, userId) is created when missing (traits {},
 *    with the event's anonymousId) and its first/last seen move to the events' earliest/latest
 *    timestamps (never backwards).
 * 2. Events with only an anonymousId: the end user it resolves to (`end_user_of`, migration 0021)
 *    is advanced the same way, or an anonymous-only end user is created.
 * 3. Frequency-cap state (see `itemStateOf`): completed / dismissed per end user and item, the
 *    first time kept.
 *
 * Later effects of the same chunk find the end users: theirs say `runsAfter: ['end-user-activity']`.
 */

interface Seen {
  tenantId: string;
  /** userId (external id); null for anonymous visitors. */
  ext: string | null;
  anon: string | null;
  first: string;
  last: string;
}

const USERS = `
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

const ANONYMOUS = `
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

const STATES = `
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

interface ItemStateRow {
  tenantId: string;
  ext: string | null;
  anon: string | null;
  itemId: string;
  completed: string | null;
  dismissed: string | null;
}

/**
 * The end users seen in a chunk, per tenant and then per id: the event's own id string is the
 * inner key, so no key is built per event (the composite keys are built once per end user, to
 * sort the rows).
 */
type SeenByTenant = Map<string, Map<string, Seen>>;

function widen(
  byTenant: SeenByTenant,
  id: string,
  tenantId: string,
  ext: string | null,
  anon: string | null,
  ts: string,
): void {
  let map = byTenant.get(tenantId);
  if (!map) {
    map = new Map();
    byTenant.set(tenantId, map);
  }
  const seen = map.get(id);
  if (!seen) {
    map.set(id, { tenantId, ext, anon, first: ts, last: ts });
    return;
  }
  // ISO 8601 UTC strings of one format compare like the instants they name.
  if (ts < seen.first) seen.first = ts;
  if (ts > seen.last) seen.last = ts;
  seen.anon ??= anon;
}

/** The rows in the order of their `tenant NUL id` keys (sortedByKey's order). */
function sortedRows(byTenant: SeenByTenant): Seen[] {
  const entries: [string, Seen][] = [];
  for (const [tenantId, map] of byTenant)
    for (const [id, seen] of map) entries.push([tenantId + SEP + id, seen]);
  return sortedByKey(entries);
}

export async function applyEndUserActivity(tx: Executor, batches: ProcessedBatch[]): Promise<void> {
  const users: SeenByTenant = new Map();
  const anonymous: SeenByTenant = new Map();
  /** [end user and item key, state]: several events of one pair share a key (the SQL groups them). */
  const states: [string, ItemStateRow][] = [];

  for (const batch of batches) {
    for (const event of batch.events) {
      const ext = event.userId ?? null;
      const anon = event.anonymousId ?? null;
      if (!ext && !anon) continue;
      if (ext) widen(users, ext, batch.tenantId, ext, anon, event.timestamp);
      else widen(anonymous, anon!, batch.tenantId, ext, anon, event.timestamp);
      const state = itemStateOf(event);
      if (state) {
        const stateAnon = ext ? null : anon;
        states.push([
          `${batch.tenantId}${SEP}${ext ?? ''}${SEP}${stateAnon ?? ''}${SEP}${state.itemId}`,
          {
            tenantId: batch.tenantId,
            ext,
            anon: stateAnon,
            itemId: state.itemId,
            completed: state.state === 'completed' ? event.timestamp : null,
            dismissed: state.state === 'dismissed' ? event.timestamp : null,
          },
        ]);
      }
    }
  }

  // Rows in key order: chunks that share end users lock them in the same order (sortedByKey).
  const freshId = () => newId();
  if (users.size > 0) {
    await preparedQuery(
      tx,
      USERS,
      columnsOf(sortedRows(users), [freshId, 'tenantId', 'ext', 'anon', 'first', 'last']),
    );
  }
  if (anonymous.size > 0) {
    await preparedQuery(
      tx,
      ANONYMOUS,
      columnsOf(sortedRows(anonymous), [freshId, 'tenantId', 'anon', 'first', 'last']),
    );
  }
  if (states.length > 0) {
    await preparedQuery(
      tx,
      STATES,
      columnsOf(sortedByKey(states), ['tenantId', 'ext', 'anon', 'itemId', 'completed', 'dismissed']),
    );
  }
}

export const endUserActivityEffect: EventEffect = {
  name: 'end-user-activity',
  apply: (tx, batches) => applyEndUserActivity(tx, batches),
};
