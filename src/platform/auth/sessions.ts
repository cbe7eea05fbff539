import { and, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { sessions } from '../../db/schema/index.js';

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
