import type { Executor } from '../../db/client.js';
import { contentNotFound, invalidTransition } from '../../platform/errors.js';
import { sameJson } from '../../platform/same-json.js';
import { decodeSnapshot, encodeSnapshot } from './codec.js';
import { DIFF_COLLECTIONS, diffSnapshots, type SnapshotDiff } from './engine/diff.js';
import {
  findLiveRow,
  findVersionRow,
  type ItemKey,
  insertVersionRow,
  lastVersionRow,
  listVersionRows,
  liveRowsOf,
  liveVersionNumbers,
  maxVersion,
  setLiveRow,
  type VersionedItemType,
  versionRowsAt,
} from './store.js';

/**
 * Versions of flows, content items, journeys and audiences: immutable snapshots (the history only
 * grows) and, for the publishable kinds, which version is live. The owning module decides what a
 * snapshot holds (its versioned fields) and when one is taken; this module stores, compares and
 * serves them. Every function runs on the caller's executor (inside its transaction, under its
 * row lock on the item, which serializes the version numbers of one item).
 */

export type Snapshot = Record<string, unknown>;
export type { ItemKey, VersionedItemType };

export interface VersionMeta {
  actorId: string | null;
  now: Date;
  note?: string | null | undefined;
}

export interface LiveVersion {
  version: number;
  publishedAt: Date;
  snapshot: Snapshot;
}

const versionMissing = () => contentNotFound('Version');

export async function liveVersion(exec: Executor, key: ItemKey): Promise<LiveVersion | null> {
  const row = await findLiveRow(exec, key);
  return row ? { version: row.version, publishedAt: row.publishedAt, snapshot: decodeSnapshot(row) } : null;
}

async function appendVersion(exec: Executor, key: ItemKey, snapshot: Snapshot, meta: VersionMeta) {
  const version = (await maxVersion(exec, key)) + 1;
  await insertVersionRow(exec, {
    ...key,
    version,
    snapshotBr: encodeSnapshot(snapshot),
    note: meta.note ?? null,
    publishedBy: meta.actorId,
    publishedAt: meta.now,
  });
  return version;
}

/**
 * Publishing the working copy `snapshot`: a new version made live, unless it equals the live
 * one. `requireChange` (publishing an item that is already published): no change is 409
 * INVALID_STATE_TRANSITION; otherwise (publishing a draft or a scheduled item) the live version
 * is kept as it is. Answers the live version and whether it is new.
 */
export async function publishSnapshot(
  exec: Executor,
  key: ItemKey,
  snapshot: Snapshot,
  meta: VersionMeta & { requireChange?: boolean; status?: string },
): Promise<{ version: number; created: boolean }> {
  const live = await liveVersion(exec, key);
  if (live && sameJson(live.snapshot, snapshot)) {
    if (meta.requireChange) throw invalidTransition(meta.status ?? 'PUBLISHED', 'publish');
    return { version: live.version, created: false };
  }
  const version = await appendVersion(exec, key, snapshot, meta);
  await setLiveRow(exec, key, version, meta.now);
  return { version, created: true };
}

/** Items with no draft (audiences): every change is a version; a change to the last one's state is none. */
export async function recordChange(
  exec: Executor,
  key: ItemKey,
  snapshot: Snapshot,
  meta: VersionMeta,
): Promise<number> {
  const last = await lastVersionRow(exec, key);
  if (last && sameJson(decodeSnapshot(last), snapshot)) return last.version;
  return appendVersion(exec, key, snapshot, meta);
}

/** `version`: the live version number (null before the first publish); `hasUnpublishedChanges`: the working copy differs from it. */
export async function versionState(
  exec: Executor,
  key: ItemKey,
  working: Snapshot,
): Promise<{ version: number | null; hasUnpublishedChanges: boolean }> {
  const live = await liveVersion(exec, key);
  return {
    version: live?.version ?? null,
    hasUnpublishedChanges: live !== null && !sameJson(live.snapshot, working),
  };
}

/** The live version numbers of several items (absent: never published). */
export const liveVersionsOf = liveVersionNumbers;

/** The live snapshots of a tenant's items of one type (`ids`: only those), by item id. */
export async function liveSnapshots(
  exec: Executor,
  tenantId: string,
  itemType: VersionedItemType,
  ids?: readonly string[],
): Promise<Map<string, LiveVersion>> {
  const rows = await liveRowsOf(exec, tenantId, itemType, ids);
  return new Map(
    rows.map((r) => [
      r.itemId,
      { version: r.version, publishedAt: r.publishedAt, snapshot: decodeSnapshot(r) },
    ]),
  );
}

/**
 * The snapshots of given versions (`tenantId`, `itemId`, `version` each), by `<itemId>:<version>`;
 * an unknown one is absent.
 */
export async function snapshotsAt(
  exec: Executor,
  itemType: VersionedItemType,
  keys: readonly { tenantId: string; itemId: string; version: number }[],
): Promise<Map<string, Snapshot>> {
  const rows = await versionRowsAt(exec, itemType, keys);
  return new Map(rows.map((r) => [`${r.itemId}:${r.version}`, decodeSnapshot(r)]));
}

// ---- reads for the routes ---------------------------------------------------------------------

export async function listVersions(exec: Executor, key: ItemKey) {
  const [rows, live] = await Promise.all([listVersionRows(exec, key), findLiveRow(exec, key)]);
  return rows.map((r) => ({ ...r, live: live?.version === r.version }));
}

export async function getVersion(exec: Executor, key: ItemKey, version: number) {
  const row = await findVersionRow(exec, key, version);
  if (!row) throw versionMissing();
  return {
    version: row.version,
    note: row.note,
    publishedBy: row.publishedBy,
    publishedAt: row.publishedAt,
    snapshot: decodeSnapshot(row),
  };
}

export async function diffVersions(
  exec: Executor,
  key: ItemKey,
  a: number,
  b: number,
): Promise<SnapshotDiff> {
  const [from, to] = await Promise.all([getVersion(exec, key, a), getVersion(exec, key, b)]);
  return diffSnapshots(from.snapshot, to.snapshot, DIFF_COLLECTIONS[key.itemType]);
}
