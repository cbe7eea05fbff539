import type { Database, Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { EndUserMerger } from './contract.js';
import {
  adoptAnonymousEndUser,
  findAnonymousEndUserForUpdate,
  foldEndUserInto,
  traitsBytes,
  upsertIdentifiedEndUser,
} from './store.js';

export interface IdentifyInput {
  userId: string;
  traits?: Record<string, unknown> | undefined;
  anonymousId?: string | undefined;
}

export interface IdentifyResult {
  id: string;
  /** True when this call created the end user (201); false when it existed or was adopted (200). */
  created: boolean;
}

/**
 * Upserts the end user identified by `userId` (traits merge shallowly: stored || given), and
 * links the anonymous visitor `anonymousId` to it:
 *   - no row for userId yet, but an anonymous-only row for anonymousId: that row is adopted
 *     (it gets the userId), keeping its id, history and item states;
 *   - both exist: the anonymous row is merged into the identified one (every module's end-user
 *     merger moves its rows: item states, survey and NPS responses, …) and deleted;
 * and the identified row keeps `anonymous_id`, so later events and sessions carrying only that
 * anonymousId resolve to the user.
 *
 * One transaction; a concurrent identify of the same user (unique violation) is retried.
 */
export async function identifyEndUser(
  db: Database,
  mergers: readonly EndUserMerger[],
  tenantId: string,
  input: IdentifyInput,
  now: Date,
): Promise<IdentifyResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((tx) => identifyOnce(tx, mergers, tenantId, input, now));
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err)) throw err;
    }
  }
}

async function identifyOnce(
  tx: Executor,
  mergers: readonly EndUserMerger[],
  tenantId: string,
  input: IdentifyInput,
  now: Date,
): Promise<IdentifyResult> {
  const traits = input.traits ?? {};
  const anonymousId = input.anonymousId ?? null;
  const anon = anonymousId ? await findAnonymousEndUserForUpdate(tx, tenantId, anonymousId) : undefined;

  if (anon) {
    // Adopt the anonymous visitor when the user has no row yet.
    const adopted = await adoptAnonymousEndUser(tx, tenantId, anon.id, {
      userId: input.userId,
      traits,
      seenAt: now,
    });
    if (adopted) {
      await assertTraitsFit(tx, tenantId, adopted.id);
      return { id: adopted.id, created: false };
    }
  }

  const id = newId();
  const target = await upsertIdentifiedEndUser(tx, {
    id,
    tenantId,
    userId: input.userId,
    anonymousId,
    traits,
    seenAt: now,
  });
  if (anon && anon.id !== target) await mergeEndUsers(tx, mergers, tenantId, anon.id, target);
  await assertTraitsFit(tx, tenantId, target);
  return { id: target, created: target === id };
}

/** Stored traits (after merging) stay under this size: each session reads and evaluates them. */
export const MAX_STORED_TRAITS_BYTES = 64 * 1024;

async function assertTraitsFit(tx: Executor, tenantId: string, id: string): Promise<void> {
  const bytes = await traitsBytes(tx, tenantId, id);
  if (bytes !== undefined && bytes > MAX_STORED_TRAITS_BYTES) {
    throw validationError([
      {
        path: 'traits',
        message: `the end user's merged traits would exceed ${MAX_STORED_TRAITS_BYTES} bytes`,
      },
    ]);
  }
}

/** Moves everything of end user `fromId` to `toId`, merges traits (toId's win) and deletes `fromId`. */
async function mergeEndUsers(
  tx: Executor,
  mergers: readonly EndUserMerger[],
  tenantId: string,
  fromId: string,
  toId: string,
): Promise<void> {
  for (const merger of mergers) await merger(tx, { tenantId, fromId, toId });
  await foldEndUserInto(tx, tenantId, fromId, toId);
}
