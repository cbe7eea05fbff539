import type { ModuleManifest } from '../../deps.js';

/**
 * Versions of flows, content items, journeys and audiences (docs/versions.md): immutable
 * snapshots, which one is live, the structural diff (engine/diff.ts) and the version routes that
 * the owning modules register under their items' paths.
 */
export const versionsModule: ModuleManifest = { name: 'versions' };

// The surface other modules use.
export type { DiffCollection, SnapshotDiff } from './engine/diff.js';
export { DIFF_COLLECTIONS, diffSnapshots } from './engine/diff.js';
export type { VersionedKind } from './kinds.js';
export { registerVersionRoutes } from './routes.js';
export { publishBody, versionFields } from './schemas.js';
export type { ItemKey, LiveVersion, Snapshot, VersionMeta } from './service.js';
export {
  liveSnapshots,
  liveVersion,
  liveVersionsOf,
  publishSnapshot,
  recordChange,
  snapshotsAt,
  versionState,
} from './service.js';
