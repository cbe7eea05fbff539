import type { EndUserMerger } from '../../end-users/index.js';
import { listJourneysInProgress, reassignEnrollments } from '../store/enrollments.js';
import { lockAndReadPrevious } from './enroll.js';

/**
 * Identify's merge: the anonymous end user's enrollments move to the identified one, except an
 * in-progress one in a journey where the identified user is in progress too (nobody is enrolled
 * twice at once): that one is deleted with the anonymous end user.
 *
 * The identified user's enrollment decisions in those journeys are serialized first (the same
 * per-(journey, user) locks every enrollment takes): an enrollment of that user committing
 * meanwhile is then seen by the update, never a unique violation that would fail the identify.
 */
export const moveEnrollments: EndUserMerger = async (tx, { tenantId, fromId, toId }) => {
  const live = await listJourneysInProgress(tx, tenantId, fromId);
  await lockAndReadPrevious(
    tx,
    live.map((journeyId) => ({ journeyId, endUserId: toId })),
  );
  await reassignEnrollments(tx, tenantId, fromId, toId);
};
