import type { Job } from '../../deps.js';
import { deleteLookupsBefore, deletePickTokensBefore } from './store.js';

const DAY_MS = 86_400_000;
/** Hour buckets are kept 8 days (7 are read); pick tokens a day past their expiry. */
export const LOOKUP_RETENTION_MS = 8 * DAY_MS;

export const targetingRetentionJob: Job = {
  name: 'targeting-retention',
  intervalMs: 3_600_000,
  async run(deps) {
    const now = deps.clock();
    await deleteLookupsBefore(deps.database.db, new Date(now - LOOKUP_RETENTION_MS));
    await deletePickTokensBefore(deps.database.db, new Date(now - DAY_MS));
  },
};
