import { rawQuery } from '../../../db/raw.js';
import type { EndUserMerger } from '../../end-users/index.js';
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
  const live = await rawQuery<{ journey_id: string }>(
    tx,
    `select distinct journey_id from journey_enrollments
     where tenant_id = $1 and end_user_id = $2 and status = 'in_progress'`,
    [tenantId, fromId],
  );
  await lockAndReadPrevious(
    tx,
    live.map((r) => ({ journeyId: r.journey_id, endUserId: toId })),
  );
  await rawQuery(
    tx,
    `update journey_enrollments e set end_user_id = $3
     where e.tenant_id = $1 and e.end_user_id = $2
       and not (e.status = 'in_progress' and exists (
         select 1 from journey_enrollments o
         where o.journey_id = e.journey_id and o.end_user_id = $3 and o.status = 'in_progress'))`,
    [tenantId, fromId, toId],
  );
};
