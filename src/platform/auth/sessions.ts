import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { members, sessions } from '../../db/schema/index.js';

/**
 * The join from a session to its user's live (accepted) membership of the session's tenant. A
 * session whose membership has ended reads a null member, and no longer authenticates or
 * refreshes.
 */
const liveMembershipOfSession = and(
  eq(members.tenantId, sessions.tenantId),
  eq(members.userId, sessions.userId),
  eq(members.isPending, false),
);

/**
 * A session with its live membership (`memberId` and `role` null once the membership ended):
 * what the guard checks on every dashboard request and what a refresh rotates.
 */
export async function findSession(exec: Executor, sessionId: string) {
  const [row] = await exec
    .select({
      id: sessions.id,
      userId: sessions.userId,
      tenantId: sessions.tenantId,
      refreshTokenHash: sessions.refreshTokenHash,
      previousRefreshTokenHash: sessions.previousRefreshTokenHash,
      refreshExpiresAt: sessions.refreshExpiresAt,
      revokedAt: sessions.revokedAt,
      rotatedAt: sessions.rotatedAt,
      memberId: members.id,
      role: members.role,
    })
    .from(sessions)
    .leftJoin(members, liveMembershipOfSession)
    .where(eq(sessions.id, sessionId))
    .limit(1);
  return row;
}

export type SessionRevokeReason = 'logout' | 'password_reset' | 'member_removed' | 'refresh_reuse';

/** Which sessions to revoke: one session, or a user's (in one tenant, or in all of them). */
export type SessionScope =
  | { sessionId: string; userId?: string; tenantId?: string }
  | { sessionId?: undefined; userId: string; tenantId?: string };

/**
 * Revokes the live sessions in `scope` (logout, password reset, member removal, refresh token
 * reuse), narrowed by `also` when given: their access and refresh tokens stop working at once.
 * Returns how many.
 */
export async function revokeSessions(
  exec: Executor,
  scope: SessionScope,
  reason: SessionRevokeReason,
  now: Date,
  also?: SQL,
): Promise<number> {
  const revoked = await exec
    .update(sessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(
      and(
        scope.sessionId === undefined ? undefined : eq(sessions.id, scope.sessionId),
        scope.userId === undefined ? undefined : eq(sessions.userId, scope.userId),
        scope.tenantId === undefined ? undefined : eq(sessions.tenantId, scope.tenantId),
        also,
        isNull(sessions.revokedAt),
      ),
    )
    .returning({ id: sessions.id });
  return revoked.length;
}
