import { and, desc, eq, inArray, max, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { itemVersions, liveItemVersions, type VersionedItemType } from '../../db/schema/index.js';
import { isUuid } from '../../platform/ids.js';

/** The queries of the versions module: its tables `item_versions` and `live_item_versions`. */

export type { VersionedItemType };
export type VersionRow = typeof itemVersions.$inferSelect;
export type NewVersionRow = typeof itemVersions.$inferInsert;

export interface ItemKey {
  tenantId: string;
  itemType: VersionedItemType;
  itemId: string;
}

const ofItem = (key: ItemKey) =>
  and(
    eq(itemVersions.tenantId, key.tenantId),
    eq(itemVersions.itemType, key.itemType),
    eq(itemVersions.itemId, key.itemId),
  );

/** The item's versions, newest first, without their snapshots (`bytes`: the stored size). */
export function listVersionRows(exec: Executor, key: ItemKey) {
  if (!isUuid(key.itemId)) return Promise.resolve([]);
  return exec
    .select({
      version: itemVersions.version,
      note: itemVersions.note,
      publishedBy: itemVersions.publishedBy,
      publishedAt: itemVersions.publishedAt,
      bytes:
        sql<number>`coalesce(octet_length(${itemVersions.snapshotBr}), pg_column_size(${itemVersions.snapshot}))`.mapWith(
          Number,
        ),
    })
    .from(itemVersions)
    .where(ofItem(key))
    .orderBy(desc(itemVersions.version));
}

export async function findVersionRow(
  exec: Executor,
  key: ItemKey,
  version: number,
): Promise<VersionRow | undefined> {
  if (!isUuid(key.itemId)) return undefined;
  const [row] = await exec
    .select()
    .from(itemVersions)
    .where(and(ofItem(key), eq(itemVersions.version, version)))
    .limit(1);
  return row;
}

export async function lastVersionRow(exec: Executor, key: ItemKey): Promise<VersionRow | undefined> {
  const [row] = await exec
    .select()
    .from(itemVersions)
    .where(ofItem(key))
    .orderBy(desc(itemVersions.version))
    .limit(1);
  return row;
}

export async function maxVersion(exec: Executor, key: ItemKey): Promise<number> {
  const [row] = await exec
    .select({ n: max(itemVersions.version) })
    .from(itemVersions)
    .where(ofItem(key));
  return row?.n ?? 0;
}

export async function insertVersionRow(exec: Executor, row: NewVersionRow): Promise<void> {
  await exec.insert(itemVersions).values(row);
}

/** The live version of the item and its snapshot, or undefined. */
export async function findLiveRow(exec: Executor, key: ItemKey): Promise<VersionRow | undefined> {
  if (!isUuid(key.itemId)) return undefined;
  const [row] = await exec
    .select({
      tenantId: itemVersions.tenantId,
      itemType: itemVersions.itemType,
      itemId: itemVersions.itemId,
      version: itemVersions.version,
      snapshot: itemVersions.snapshot,
      snapshotBr: itemVersions.snapshotBr,
      note: itemVersions.note,
      publishedBy: itemVersions.publishedBy,
      publishedAt: liveItemVersions.publishedAt,
    })
    .from(liveItemVersions)
    .innerJoin(
      itemVersions,
      and(
        eq(itemVersions.tenantId, liveItemVersions.tenantId),
        eq(itemVersions.itemType, liveItemVersions.itemType),
        eq(itemVersions.itemId, liveItemVersions.itemId),
        eq(itemVersions.version, liveItemVersions.version),
      ),
    )
    .where(
      and(
        eq(liveItemVersions.tenantId, key.tenantId),
        eq(liveItemVersions.itemType, key.itemType),
        eq(liveItemVersions.itemId, key.itemId),
      ),
    )
    .limit(1);
  return row;
}

/** Makes `version` the item's live one (published at `at`). */
export async function setLiveRow(exec: Executor, key: ItemKey, version: number, at: Date): Promise<void> {
  await exec
    .insert(liveItemVersions)
    .values({ ...key, version, publishedAt: at })
    .onConflictDoUpdate({
      target: [liveItemVersions.tenantId, liveItemVersions.itemType, liveItemVersions.itemId],
      set: { version, publishedAt: at },
    });
}

/** The live versions (with snapshots) of the tenant's items of one type; `ids` narrows them. */
export function liveRowsOf(
  exec: Executor,
  tenantId: string,
  itemType: VersionedItemType,
  ids?: readonly string[],
) {
  if (ids && ids.length === 0) return Promise.resolve([]);
  return exec
    .select({
      itemId: itemVersions.itemId,
      version: itemVersions.version,
      snapshot: itemVersions.snapshot,
      snapshotBr: itemVersions.snapshotBr,
      publishedAt: liveItemVersions.publishedAt,
    })
    .from(liveItemVersions)
    .innerJoin(
      itemVersions,
      and(
        eq(itemVersions.tenantId, liveItemVersions.tenantId),
        eq(itemVersions.itemType, liveItemVersions.itemType),
        eq(itemVersions.itemId, liveItemVersions.itemId),
        eq(itemVersions.version, liveItemVersions.version),
      ),
    )
    .where(
      and(
        eq(liveItemVersions.tenantId, tenantId),
        eq(liveItemVersions.itemType, itemType),
        ...(ids ? [inArray(liveItemVersions.itemId, [...ids])] : []),
      ),
    );
}

/** Live version numbers of items (for list reads). */
export async function liveVersionNumbers(
  exec: Executor,
  tenantId: string,
  itemType: VersionedItemType,
  ids: readonly string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await exec
    .select({ itemId: liveItemVersions.itemId, version: liveItemVersions.version })
    .from(liveItemVersions)
    .where(
      and(
        eq(liveItemVersions.tenantId, tenantId),
        eq(liveItemVersions.itemType, itemType),
        inArray(liveItemVersions.itemId, [...ids]),
      ),
    );
  return new Map(rows.map((r) => [r.itemId, r.version]));
}

/**
 * Given versions of items of one type, by (tenant, item, version), with their snapshots: any
 * tenant's, each key naming its own (the journey engine's timer job steps several tenants' at once).
 */
export function versionRowsAt(
  exec: Executor,
  itemType: VersionedItemType,
  keys: readonly { tenantId: string; itemId: string; version: number }[],
) {
  if (keys.length === 0) return Promise.resolve([]);
  const v = itemVersions;
  return exec
    .select({
      itemId: v.itemId,
      version: v.version,
      snapshot: v.snapshot,
      snapshotBr: v.snapshotBr,
    })
    .from(v)
    .where(
      and(
        eq(v.itemType, itemType),
        sql`(${v.tenantId}, ${v.itemId}, ${v.version}) in (select * from unnest(
          ${sql.param(keys.map((k) => k.tenantId))}::uuid[], ${sql.param(keys.map((k) => k.itemId))}::uuid[],
          ${sql.param(keys.map((k) => k.version))}::int[]))`,
      ),
    );
}
