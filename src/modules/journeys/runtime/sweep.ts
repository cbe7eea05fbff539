import type { Job } from '../../../deps.js';
import { stopInProgressEnrollments } from '../store/enrollments.js';
import { lockArchivedJourneysInProgress } from '../store/journeys.js';

export const JOURNEY_ARCHIVE_SWEEP = 'journey-archive-sweep';

/**
 * Archive stops a journey's in-progress enrollments in its own transaction, but an enrollment
 * that a concurrent event chunk or session starts (it read the journey as PUBLISHED just before
 * the archive committed) commits after that stop and would stay in progress in an ARCHIVED
 * journey. This job stops those, as archive would have: the journey is locked first (as a
 * lifecycle change locks it), then its enrollments, so it never deadlocks with either.
 * The partial unique index on in-progress enrollments makes the lookup an index probe per
 * archived journey.
 */
export const journeyArchiveSweepJob: Job = {
  name: JOURNEY_ARCHIVE_SWEEP,
  intervalMs: 10_000,
  async run(deps) {
    const stopped = await deps.database.db.transaction(async (tx) =>
      stopInProgressEnrollments(tx, await lockArchivedJourneysInProgress(tx), new Date(deps.clock())),
    );
    if (stopped > 0) {
      deps.log.info(
        { job: JOURNEY_ARCHIVE_SWEEP, stopped },
        'stopped enrollments that started as their journey was archived',
      );
    }
  },
};
