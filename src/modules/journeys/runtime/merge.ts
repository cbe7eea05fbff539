import { rawQuery } from '../../../db/raw.js';
import type { EndUserMerger } from '../../end-users/contract.js';

/**
 * Identify's merge: the anonymous end user's enrollments move to the identified one, except an
 * in-progress one in a journey where the identified user is in progress too (nobody is enrolled
 * twice at once): that one is deleted with the anonymous end user.
 */
export const moveEnrollments: EndUserMerger = async (tx, { tenantId, fromId, toId }) => {
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
