import type { Database, Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { rawQuery } from '../../db/raw.js';
import { validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { EndUserMerger } from './contract.js';

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

const UPSERT = `
insert into end_users as e (id, tenant_id, external_id, anonymous_id, traits, first_seen_at, last_seen_at)
values ($1, $2, $3, $4, $5::jsonb, $6, $6)
on conflict (tenant_id, external_id) where external_id is not null do update set
  traits = e.traits || excluded.traits,
  anonymous_id = coalesce(excluded.anonymous_id, e.anonymous_id),
  last_seen_at = greatest(e.last_seen_at, excluded.last_seen_at),
  updated_at = now()
returning id`;

async function identifyOnce(
  tx: Executor,
  mergers: readonly EndUserMerger[],
  tenantId: string,
  input: IdentifyInput,
  now: Date,
): Promise<IdentifyResult> {
  const traits = JSON.stringify(input.traits ?? {});
  const anonymousId = input.anonymousId ?? null;
  const anon = anonymousId
    ? (
        await rawQuery<{ id: string }>(
          tx,
          `select id from end_users where tenant_id = $1 and anonymous_id = $2 and external_id is null for update`,
          [tenantId, anonymousId],
        )
      )[0]
    : undefined;

  if (anon) {
    // Adopt the anonymous visitor when the user has no row yet.
    const adopted = await rawQuery<{ id: string }>(
      tx,
      `update end_users set external_id = $3, traits = traits || $4::jsonb,
         last_seen_at = greatest(last_seen_at, $5), updated_at = now()
       where tenant_id = $1 and id = $2
         and not exists (select 1 from end_users u where u.tenant_id = $1 and u.external_id = $3)
       returning id`,
      [tenantId, anon.id, input.userId, traits, now.toISOString()],
    );
    if (adopted[0]) {
      await assertTraitsFit(tx, tenantId, adopted[0].id);
      return { id: adopted[0].id, created: false };
    }
  }

  const id = newId();
  const [row] = await rawQuery<{ id: string }>(tx, UPSERT, [
    id,
    tenantId,
    input.userId,
    anonymousId,
    traits,
    now.toISOString(),
  ]);
  const target = row!.id;
  if (anon && anon.id !== target) await mergeEndUsers(tx, mergers, tenantId, anon.id, target);
  await assertTraitsFit(tx, tenantId, target);
  return { id: target, created: target === id };
}

/** Stored traits (after merging) stay under this size: each session reads and evaluates them. */
export const MAX_STORED_TRAITS_BYTES = 64 * 1024;

async function assertTraitsFit(tx: Executor, tenantId: string, id: string): Promise<void> {
  const [row] = await rawQuery<{ bytes: number }>(
    tx,
    'select octet_length(traits::text) as bytes from end_users where tenant_id = $1 and id = $2',
    [tenantId, id],
  );
  if (row && row.bytes > MAX_STORED_TRAITS_BYTES) {
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
  await rawQuery(
    tx,
    `update end_users t set traits = f.traits || t.traits, first_seen_at = least(t.first_seen_at, f.first_seen_at),
       last_seen_at = greatest(t.last_seen_at, f.last_seen_at)
     from end_users f
     where t.tenant_id = $1 and t.id = $3 and f.tenant_id = $1 and f.id = $2`,
    [tenantId, fromId, toId],
  );
  await rawQuery(tx, 'delete from end_users where tenant_id = $1 and id = $2', [tenantId, fromId]);
}
