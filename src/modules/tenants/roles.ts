import { ROLE_RANK, type Role } from '../../platform/auth/guard.js';
import { AppError } from '../../platform/errors.js';

/**
 * Only an OWNER may invite an OWNER, revoke an OWNER invite link or remove an OWNER (ADMINs
 * manage everyone else). `what` completes the message "Only an OWNER can …".
 */
export function assertOwnerFor(actorRole: Role, targetRole: Role, what: string): void {
  if (targetRole === 'OWNER' && actorRole !== 'OWNER') {
    throw new AppError('INSUFFICIENT_ROLE', `Only an OWNER can ${what}`);
  }
}

/**
 * A link speaks for its creator: it works only while the creator is an accepted member of the
 * tenant (`creatorRole` not null) with a role ranked at least the link's.
 */
export const creatorMayGrant = (creatorRole: Role | null, linkRole: Role): boolean =>
  creatorRole !== null && ROLE_RANK[creatorRole] >= ROLE_RANK[linkRole];

/** The roles a link may grant that a creator with `role` may not (the links a demotion revokes). */
export const rolesBeyond = (role: Role): Role[] =>
  (Object.keys(ROLE_RANK) as Role[]).filter((linkRole) => !creatorMayGrant(role, linkRole));
