import { LRUCache } from 'lru-cache';
import type { Executor } from '../../db/client.js';
import { SEP, sortedByKey } from '../../db/raw.js';
import type { MemoKey } from '../events/index.js';
import { dayFromEpoch, type UserKeyPrefix } from './keys.js';
import {
  addReachPoints,
  insertUserDaysPlaceholders,
  lockUserDays,
  type UserDaysKey,
  updateUserDays,
} from './store/reach.js';

/**
 * Distinct users over arbitrary day ranges, exactly, at a cost independent of the number of
 * users: every (user, active day) is a point (day, previous active day of the user), and the
 * users active in [s, e] are the points with s ≤ day ≤ e and prev < s — one per user, their
 * first active day inside the range. analytics_reach counts points per (scope, day, prev);
 * analytics_user_days keeps each user's active days so a new day finds its neighbours.
 *
 * Adding day d between a user's active days p < d < n moves n's point from (n, p) to (n, d)
 * and adds (d, p); a day already active changes nothing (so replays and repeats are free).
 */

/** `prev` of a user's first active day; stored as '-infinity'. */
export const FIRST_DAY = Number.NEGATIVE_INFINITY;

type PointDelta = (day: number, prev: number, change: number) => void;

function lowerBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Adds `fresh` epoch days to a user's sorted `active` days (in place), reporting the point
 * changes. Returns whether any day was new. Pure; the heart of the reach rollup.
 */
export function addActiveDays(active: number[], fresh: Iterable<number>, delta: PointDelta): boolean {
  let changed = false;
  for (const d of [...fresh].sort((a, b) => a - b)) {
    const i = lowerBound(active, d);
    if (active[i] === d) continue;
    const prev = i > 0 ? active[i - 1]! : FIRST_DAY;
    if (i < active.length) {
      const next = active[i]!;
      delta(next, prev, -1);
      delta(next, d, 1);
    }
    delta(d, prev, 1);
    active.splice(i, 0, d);
    changed = true;
  }
  return changed;
}

/** Active days from the stored form: `origin` (epoch day) and a '0'/'1' string from it. */
export function decodeDays(origin: number, bits: string): number[] {
  const days: number[] = [];
  for (let i = bits.indexOf('1'); i !== -1; i = bits.indexOf('1', i + 1)) days.push(origin + i);
  return days;
}

export function encodeDays(days: number[]): { origin: number; bits: string } {
  if (days.length === 0) return { origin: 0, bits: '' };
  const origin = days[0]!;
  const bits = new Array<string>(days[days.length - 1]! - origin + 1).fill('0');
  for (const d of days) bits[d - origin] = '1';
  return { origin, bits: bits.join('') };
}

/** A user's epoch days seen in a chunk, for one scope. */
export interface UserDays {
  tenantId: string;
  scope: string;
  userKey: string;
  days: Set<number>;
}

/** The users of one (tenant, scope), by id: those of a userId and the anonymous ones apart. */
interface ScopeUsers {
  tenantId: string;
  scope: string;
  byId: Record<UserKeyPrefix, Map<string, UserDays>>;
}

/** The reach input of a chunk: new active days per (tenant, scope, user), and anonymous points. */
export class ReachChanges {
  /**
   * tenant → scope → users, each looked up by the event's own id string: no key is built per
   * event (the composite keys are built once per user, by `users`).
   */
  private readonly scopes = new Map<string, Map<string, ScopeUsers>>();
  private last: ScopeUsers | undefined;
  /** (tenant, scope, day, prev) → point count change. */
  readonly points = new Map<
    string,
    { tenantId: string; scope: string; day: number; prev: number; n: number }
  >();

  /** A day of the user `prefix` + `id` (its analytics_user_days `user_key`). */
  addUserDay(tenantId: string, scope: string, prefix: UserKeyPrefix, id: string, day: number): void {
    const users = this.scopeUsers(tenantId, scope).byId[prefix];
    const row = users.get(id);
    if (row) row.days.add(day);
    else users.set(id, { tenantId, scope, userKey: prefix + id, days: new Set([day]) });
  }

  private scopeUsers(tenantId: string, scope: string): ScopeUsers {
    const last = this.last;
    if (last && last.tenantId === tenantId && last.scope === scope) return last;
    let byScope = this.scopes.get(tenantId);
    if (!byScope) {
      byScope = new Map();
      this.scopes.set(tenantId, byScope);
    }
    let users = byScope.get(scope);
    if (!users) {
      users = { tenantId, scope, byId: { 'u:': new Map(), 'a:': new Map() } };
      byScope.set(scope, users);
    }
    this.last = users;
    return users;
  }

  /** (tenant NUL scope NUL user key) → the user's new days. */
  users(): Map<string, UserDays> {
    const all = new Map<string, UserDays>();
    for (const byScope of this.scopes.values())
      for (const { byId } of byScope.values())
        for (const users of [byId['u:'], byId['a:']])
          for (const row of users.values()) all.set(row.tenantId + SEP + row.scope + SEP + row.userKey, row);
    return all;
  }

  /** An event without a user: a user of its own, active that day only. */
  addLoneDay(tenantId: string, scope: string, day: number): void {
    this.addPoint(tenantId, scope, day, FIRST_DAY, 1);
  }

  addPoint(tenantId: string, scope: string, day: number, prev: number, n: number): void {
    const k = tenantId + SEP + scope + SEP + day + SEP + prev;
    const row = this.points.get(k);
    if (row) row.n += n;
    else this.points.set(k, { tenantId, scope, day, prev, n });
  }
}

/**
 * The most KnownDays holds, in bytes (approximately: each entry's key, days and bookkeeping).
 * An entry is a (tenant, scope, user): a user who views a ten-step flow takes about twelve.
 */
const KNOWN_DAYS_BYTES = 16 * 2 ** 20;
/** The span of a user's latest active days remembered: events arrive on or near their user's last day. */
const KNOWN_SPAN_DAYS = 7;

/**
 * Active days already committed for recently seen users (tenant NUL scope NUL user key → their
 * latest days, ascending), so that a chunk skips the users whose days are all known: most events
 * repeat a day their user was already active, which changes nothing (see addActiveDays), yet each
 * would cost a placeholder, a locked row and its decoding. It learns from the rows read under
 * lock, before the merge: committed days (the only row this transaction wrote before is its own
 * new placeholder, which has none). Days are never removed from a row (schema/analytics.ts), so
 * a remembered day stays true whichever instance or chunk commits next, and whether this chunk
 * commits or not. Least recently seen entries are forgotten first.
 */
export class KnownDays {
  private readonly users = new LRUCache<string, number[]>({
    maxSize: KNOWN_DAYS_BYTES,
    sizeCalculation: (days, key) => key.length + 8 * days.length + 100,
  });

  /** Whether every day of `fresh` is a committed active day of the user `key`. */
  covers(key: string, fresh: ReadonlySet<number>): boolean {
    const days = this.users.get(key);
    if (!days) return false;
    for (const d of fresh) if (days[lowerBound(days, d)] !== d) return false;
    return true;
  }

  /** Remembers the latest of a user's committed active days (sorted ascending). */
  remember(key: string, active: readonly number[]): void {
    if (active.length === 0) return;
    const from = lowerBound(active, active[active.length - 1]! - KNOWN_SPAN_DAYS);
    this.users.set(key, active.slice(from));
  }
}

/** The app's KnownDays, kept by the processor from chunk to chunk (EffectContext.memo). */
export const KNOWN_DAYS: MemoKey<KnownDays> = { create: () => new KnownDays() };

const dateOf = (n: number) => (n === FIRST_DAY ? '-infinity' : dayFromEpoch(n));

/**
 * Applies a chunk's reach changes: creates and locks the users' state rows (placeholders first,
 * so a new user is serialized too), merges the new days, rewrites the changed rows and upserts
 * the point changes. Four statements whatever the chunk size. Users whose days `known` holds
 * already are left out; the rows read under lock teach it.
 */
export async function writeReach(tx: Executor, changes: ReachChanges, known?: KnownDays): Promise<void> {
  const users = changes.users();
  if (known) for (const [key, fresh] of users) if (known.covers(key, fresh.days)) users.delete(key);
  if (users.size > 0) {
    const keys = sortedByKey(users);
    await insertUserDaysPlaceholders(tx, keys);
    const rows = await lockUserDays(tx, keys);
    const updates: (UserDaysKey & { origin: string; bits: string })[] = [];
    for (const row of rows) {
      const key = row.tenant_id + SEP + row.scope + SEP + row.user_key;
      const fresh = users.get(key);
      if (!fresh) continue;
      const active = decodeDays(Number(row.origin), row.days);
      // Before the merge (which changes `active` in place): what is committed (a placeholder this
      // transaction just made has no days and teaches nothing).
      known?.remember(key, active);
      const changed = addActiveDays(active, fresh.days, (day, prev, n) =>
        changes.addPoint(row.tenant_id, row.scope, day, prev, n),
      );
      if (changed) {
        const { origin, bits } = encodeDays(active);
        updates.push({
          tenantId: row.tenant_id,
          scope: row.scope,
          userKey: row.user_key,
          origin: dayFromEpoch(origin),
          bits,
        });
      }
    }
    if (updates.length > 0) await updateUserDays(tx, updates);
  }
  const points = sortedByKey(changes.points).filter((p) => p.n !== 0);
  if (points.length === 0) return;
  await addReachPoints(
    tx,
    points.map((p) => ({
      tenantId: p.tenantId,
      scope: p.scope,
      day: dayFromEpoch(p.day),
      prev: dateOf(p.prev),
      n: p.n,
    })),
  );
}
