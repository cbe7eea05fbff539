import { archiveExpiredContent, publishDueAnnouncements } from '../modules/content/bulk.js';
import { archiveExpiredFlows, publishDueFlows } from '../modules/flows/scheduling.js';
import type { Worker } from './runner.js';

/**
 * Moves SCHEDULED flows and announcements to PUBLISHED at `scheduledAt`, and archives what
 * passed `expiresAt` (DECISIONS §6). Each step is one conditional UPDATE, so any number of
 * instances may run it: every row changes once. Each step runs in its own transaction (the
 * moves run on the executor they are given), so a move and its audit rows commit together.
 * Expiry runs first, so an item past both dates is archived, never published.
 */
export const schedulerWorker: Worker = {
  name: 'scheduler',
  intervalMs: 15_000,
  async run(deps) {
    const now = new Date(deps.clock());
    const { db } = deps.database;
    const archivedFlows = await db.transaction((tx) => archiveExpiredFlows(tx, now));
    const publishedFlows = await db.transaction((tx) => publishDueFlows(tx, now));
    const archivedContent = await db.transaction((tx) => archiveExpiredContent(tx, now));
    const publishedContent = await db.transaction((tx) => publishDueAnnouncements(tx, now));
    const changed = archivedFlows + publishedFlows + archivedContent + publishedContent;
    if (changed > 0) {
      deps.log.info(
        { archivedFlows, publishedFlows, archivedContent, publishedContent },
        'scheduled changes applied',
      );
    }
  },
};
