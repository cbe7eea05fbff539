import type { Executor } from '../../db/client.js';
import type { EventEffect, ProcessedBatch } from '../events/index.js';
import { itemStateOf } from './item-states.js';
import {
  type ItemStateEvent,
  recordItemStates,
  type SeenEndUser,
  upsertSeenAnonymous,
  upsertSeenUsers,
} from './store.js';

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

/**
 * The end users seen in a chunk, per tenant and then per id: the event's own id string is the
 * inner key, so no key is built per event (the store builds the composite keys once per end
 * user, to sort the rows).
 */
type SeenByTenant = Map<string, Map<string, SeenEndUser>>;

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

function rowsOf(byTenant: SeenByTenant): SeenEndUser[] {
  const rows: SeenEndUser[] = [];
  for (const map of byTenant.values()) for (const seen of map.values()) rows.push(seen);
  return rows;
}

export async function applyEndUserActivity(tx: Executor, batches: ProcessedBatch[]): Promise<void> {
  const users: SeenByTenant = new Map();
  const anonymous: SeenByTenant = new Map();
  /** Several events of one end user and item may each have a row (the SQL groups them). */
  const states: ItemStateEvent[] = [];

  for (const batch of batches) {
    for (const event of batch.events) {
      const ext = event.userId ?? null;
      const anon = event.anonymousId ?? null;
      if (!ext && !anon) continue;
      if (ext) widen(users, ext, batch.tenantId, ext, anon, event.timestamp);
      else widen(anonymous, anon!, batch.tenantId, ext, anon, event.timestamp);
      const state = itemStateOf(event);
      if (state) {
        states.push({
          tenantId: batch.tenantId,
          ext,
          anon: ext ? null : anon,
          itemId: state.itemId,
          completed: state.state === 'completed' ? event.timestamp : null,
          dismissed: state.state === 'dismissed' ? event.timestamp : null,
        });
      }
    }
  }

  if (users.size > 0) await upsertSeenUsers(tx, rowsOf(users));
  if (anonymous.size > 0) await upsertSeenAnonymous(tx, rowsOf(anonymous));
  await recordItemStates(tx, states);
}

export const endUserActivityEffect: EventEffect = {
  name: 'end-user-activity',
  apply: (tx, batches) => applyEndUserActivity(tx, batches),
};
