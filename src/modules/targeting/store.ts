import { and, eq, gte, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { pickTokens, targetFingerprints, targetLookups } from '../../db/schema/index.js';
import { isUuid } from '../../platform/ids.js';
import type { Counts, FingerprintCandidate, ItemKind, LookupBucket } from './engine/health.js';

/** The queries of targeting: its tables `target_lookups`, `target_fingerprints` and `pick_tokens`. */

// ---- lookups ---------------------------------------------------------------------------------

/** Adds a chunk's buckets (one row per tenant, target, selector and hour) in one statement. */
export async function addLookups(exec: Executor, buckets: readonly LookupBucket[]): Promise<void> {
  if (buckets.length === 0) return;
  await exec
    .insert(targetLookups)
    .values(buckets.map((b) => ({ ...b })))
    .onConflictDoUpdate({
      target: [targetLookups.tenantId, targetLookups.targetId, targetLookups.selector, targetLookups.hour],
      set: {
        found: sql`${targetLookups.found} + excluded.found`,
        healed: sql`${targetLookups.healed} + excluded.healed`,
        ambiguous: sql`${targetLookups.ambiguous} + excluded.ambiguous`,
        missing: sql`${targetLookups.missing} + excluded.missing`,
        suggestedSelector: sql`coalesce(excluded.suggested_selector, ${targetLookups.suggestedSelector})`,
        lastSeenAt: sql`greatest(${targetLookups.lastSeenAt}, excluded.last_seen_at)`,
      },
    });
}

/** A target's counts over 7 days and over the last hour, per authored selector. */
export interface HealthRow {
  targetId: string;
  selector: string;
  itemKind: ItemKind;
  itemId: string;
  week: Counts;
  lastHour: Counts;
  suggestedSelector: string | null;
  lastSeenAt: Date;
}

const int = (column: SQL.Aliased | SQL) => sql<number>`coalesce(${column}, 0)::int`;

/**
 * The tenant's counts since `weekFrom` and `hourFrom` (hour buckets at or after them), per target
 * and selector; only the targets of `targetIds` when given. The suggested selector is the latest
 * bucket's that has one.
 */
export async function healthRows(
  exec: Executor,
  tenantId: string,
  { weekFrom, hourFrom, targetIds }: { weekFrom: Date; hourFrom: Date; targetIds?: string[] },
): Promise<HealthRow[]> {
  const where = [eq(targetLookups.tenantId, tenantId), gte(targetLookups.hour, weekFrom)];
  if (targetIds) {
    const ids = targetIds.filter(isUuid);
    if (ids.length === 0) return [];
    where.push(inArray(targetLookups.targetId, ids));
  }
  const recent = sql`${targetLookups.hour} >= ${hourFrom.toISOString()}::timestamptz`;
  const rows = await exec
    .select({
      targetId: targetLookups.targetId,
      selector: targetLookups.selector,
      itemKind: sql<ItemKind>`min(${targetLookups.itemKind})`,
      itemId: sql<string>`(array_agg(${targetLookups.itemId}))[1]`,
      found: int(sql`sum(${targetLookups.found})`),
      healed: int(sql`sum(${targetLookups.healed})`),
      ambiguous: int(sql`sum(${targetLookups.ambiguous})`),
      missing: int(sql`sum(${targetLookups.missing})`),
      hFound: int(sql`sum(${targetLookups.found}) filter (where ${recent})`),
      hHealed: int(sql`sum(${targetLookups.healed}) filter (where ${recent})`),
      hAmbiguous: int(sql`sum(${targetLookups.ambiguous}) filter (where ${recent})`),
      hMissing: int(sql`sum(${targetLookups.missing}) filter (where ${recent})`),
      suggestedSelector: sql<
        string | null
      >`(array_agg(${targetLookups.suggestedSelector} order by ${targetLookups.hour} desc) filter (where ${targetLookups.suggestedSelector} is not null))[1]`,
      lastSeenAt: sql<string>`max(${targetLookups.lastSeenAt})`,
    })
    .from(targetLookups)
    .where(and(...where))
    .groupBy(targetLookups.targetId, targetLookups.selector);
  return rows.map((r) => ({
    targetId: r.targetId,
    selector: r.selector,
    itemKind: r.itemKind,
    itemId: r.itemId,
    week: { found: r.found, healed: r.healed, ambiguous: r.ambiguous, missing: r.missing },
    lastHour: { found: r.hFound, healed: r.hHealed, ambiguous: r.hAmbiguous, missing: r.hMissing },
    suggestedSelector: r.suggestedSelector,
    lastSeenAt: new Date(r.lastSeenAt),
  }));
}

/** Forgets buckets older than `before` (retention). */
export async function deleteLookupsBefore(exec: Executor, before: Date): Promise<void> {
  await exec.delete(targetLookups).where(lt(targetLookups.hour, before));
}

// ---- fingerprints ----------------------------------------------------------------------------

export interface FingerprintRow {
  tenantId: string;
  targetId: string;
  selector: string;
  fpKey: string;
  fingerprint: Record<string, unknown>;
  seenCount: number;
  picked: boolean;
  lastSeenAt: Date;
}

/** Adds sightings (one row per tenant, target, selector and fingerprint key) in one statement; a picked row stays picked. */
export async function addFingerprints(exec: Executor, rows: readonly FingerprintRow[]): Promise<void> {
  if (rows.length === 0) return;
  await exec
    .insert(targetFingerprints)
    .values(rows.map((r) => ({ ...r })))
    .onConflictDoUpdate({
      target: [
        targetFingerprints.tenantId,
        targetFingerprints.targetId,
        targetFingerprints.selector,
        targetFingerprints.fpKey,
      ],
      set: {
        fingerprint: sql`excluded.fingerprint`,
        seenCount: sql`${targetFingerprints.seenCount} + excluded.seen_count`,
        picked: sql`${targetFingerprints.picked} or excluded.picked`,
        lastSeenAt: sql`greatest(${targetFingerprints.lastSeenAt}, excluded.last_seen_at)`,
      },
    });
}

/** The stored fingerprints of (tenant, target, selector) triples, as candidates with their copy. */
export async function fingerprintCandidates(
  exec: Executor,
  targets: readonly { tenantId: string; targetId: string; selector: string }[],
): Promise<
  (FingerprintCandidate & { tenantId: string; targetId: string; fingerprint: Record<string, unknown> })[]
> {
  if (targets.length === 0) return [];
  const rows = await exec
    .select()
    .from(targetFingerprints)
    .where(
      or(
        ...targets.map((t) =>
          and(
            eq(targetFingerprints.tenantId, t.tenantId),
            eq(targetFingerprints.targetId, t.targetId),
            eq(targetFingerprints.selector, t.selector),
          ),
        ),
      ),
    );
  return rows.map((r) => ({
    tenantId: r.tenantId,
    targetId: r.targetId,
    key: r.fpKey,
    seenCount: r.seenCount,
    picked: r.picked,
    fingerprint: r.fingerprint,
  }));
}

/** Copies a target's fingerprints from one selector to another (a suggested selector applied: same element). */
export async function copyFingerprints(
  exec: Executor,
  tenantId: string,
  targetId: string,
  from: string,
  to: string,
): Promise<void> {
  await exec.execute(sql`
    insert into ${targetFingerprints} (tenant_id, target_id, selector, fp_key, fingerprint, seen_count, picked, last_seen_at)
    select tenant_id, target_id, ${to}, fp_key, fingerprint, seen_count, picked, last_seen_at
    from ${targetFingerprints}
    where tenant_id = ${tenantId} and target_id = ${targetId} and selector = ${from}
    on conflict (tenant_id, target_id, selector, fp_key) do nothing`);
}

// ---- pick tokens -----------------------------------------------------------------------------

export type PickTokenRow = typeof pickTokens.$inferSelect;

export async function insertPickToken(
  exec: Executor,
  row: typeof pickTokens.$inferInsert,
): Promise<PickTokenRow> {
  const [inserted] = await exec.insert(pickTokens).values(row).returning();
  return inserted!;
}

export async function findPickTokenByHash(
  exec: Executor,
  tokenHash: string,
): Promise<PickTokenRow | undefined> {
  const [row] = await exec.select().from(pickTokens).where(eq(pickTokens.tokenHash, tokenHash)).limit(1);
  return row;
}

/** The pick of this tenant's user, or undefined. */
export async function findPickToken(
  exec: Executor,
  tenantId: string,
  userId: string,
  id: string,
): Promise<PickTokenRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await exec
    .select()
    .from(pickTokens)
    .where(and(eq(pickTokens.id, id), eq(pickTokens.tenantId, tenantId), eq(pickTokens.userId, userId)))
    .limit(1);
  return row;
}

/** Uses the token once: stores the pick when it is still unused and unexpired at `now`; the row, else undefined. */
export async function usePickToken(
  exec: Executor,
  id: string,
  now: Date,
  pick: { selector: string; fingerprint: Record<string, unknown> },
): Promise<PickTokenRow | undefined> {
  const [row] = await exec
    .update(pickTokens)
    .set({ usedAt: now, selector: pick.selector, fingerprint: pick.fingerprint })
    .where(and(eq(pickTokens.id, id), isNull(pickTokens.usedAt), gte(pickTokens.expiresAt, now)))
    .returning();
  return row;
}

/** Forgets tokens that expired before `before` (retention). */
export async function deletePickTokensBefore(exec: Executor, before: Date): Promise<void> {
  await exec.delete(pickTokens).where(lt(pickTokens.expiresAt, before));
}
