import type { Role } from '../../db/schema/index.js';
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
