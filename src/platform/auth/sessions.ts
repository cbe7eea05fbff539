import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { members, sessions } from '../../db/schema/index.js';

/**
 * The join from a session to its user's live (accepted) membership of the session's tenant:
 * `.leftJoin(members, liveMembershipOfSession)`. A session whose membership has ended reads a
 * null member, and no longer authenticates or refreshes.
 */
export const liveMembershipOfSession = and(
  eq(members.tenantId, sessions.tenantId),
  eq(members.userId, sessions.userId),
  eq(members.isPending, false),
);

/**
 * Revokes the live sessions matching `where` (logout, password reset, member removal, refresh
 * token reuse): their access and refresh tokens stop working at once. Returns how many.
 */
export async function revokeSessions(
  exec: Executor,
  where: SQL | undefined,
  reason: string,
  now: Date,
): Promise<number> {
  const revoked = await exec
    .update(sessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(where, isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return revoked.length;
}
