import type { DatabaseHandle } from '../../db/client.js';
import { createBatcher } from '../../platform/batcher.js';
import { newId } from '../../platform/ids.js';
import type { DeliveryContributor } from './contract.js';
import { type SessionKey, type SessionUserRow, sessionLookupStatements } from './store.js';

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

const keyOf = (w: SessionWho) =>
  w.userId ? `${w.tenantId}\u0000u\u0000${w.userId}` : `${w.tenantId}\u0000a\u0000${w.anonymousId ?? ''}`;

/**
 * Session lookups, coalesced: concurrent sessions share one read-only statement (an INSERT only
 * for new end users). Each contributor's user state is a column of that statement.
 */
export function createSessionLookup(database: DatabaseHandle, contributors: readonly DeliveryContributor[]) {
  const statements = sessionLookupStatements(contributors);

  function toLookup(row: SessionUserRow): SessionLookup {
    return {
      endUserId: row.endUserId,
      externalId: row.externalId,
      traits: row.traits,
      completed: row.completed?.length ? new Set(row.completed) : EMPTY,
      dismissed: row.dismissed?.length ? new Set(row.dismissed) : EMPTY,
      version: row.version,
      states: row.states,
    };
  }

  const read = async (keys: SessionKey[]) => (await statements.read(database, keys)).map(toLookup);

  /** Resolves a batch of session requests: one read-only statement; one insert only for new end users. */
  async function lookupMany(who: SessionWho[]): Promise<SessionLookup[]> {
    // Identical requests of one batch (the same user in several tabs) share one lookup.
    const index = new Map<string, number>();
    const keys: SessionKey[] = [];
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
      const created = await statements.insertEndUsers(
        database,
        missing.map((at, j) => ({ id: ids[j]!, key: keys[at]! })),
        now,
      );
      const raced: number[] = [];
      missing.forEach((at, j) => {
        const row = created.get(ids[j]!);
        if (row) found[at] = toLookup({ ...row, version: found[at]!.version });
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
