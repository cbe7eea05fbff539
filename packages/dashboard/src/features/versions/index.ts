/** What the editors use of versions: the badges, publish with a note, and the version history. */
export { PublishButton, useVersionUi, VersionBadges, type VersionUi } from './version-bar';
export { ItemVersions, VersionHistory } from './version-history';
export type { VersionTarget } from './versions-api';
