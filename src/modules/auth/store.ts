import { and, eq, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { passwordResetRequests, passwordResets, sessions, users } from '../../db/schema/index.js';
import { revokeSessions } from '../../platform/auth/sessions.js';
import { newId } from '../../platform/ids.js';

// The auth module's queries: accounts (`users`), password resets, and the sessions a sign-in
// opens and a refresh rotates. Reading a session and revoking sessions are the guard's too
// (platform/auth/sessions.ts); memberships and invites are the tenants module's.

export type UserRow = typeof users.$inferSelect;

/** What a user looks like outside the service: never the password hash. */
const publicUserColumns = { id: users.id, email: users.email, name: users.name };
export type PublicUser = Pick<UserRow, keyof typeof publicUserColumns>;

/** Emails match case-insensitively, as the unique index `users_email_lower_key` does. */
export async function findUserByEmail(exec: Executor, email: string): Promise<UserRow | undefined> {
  const [row] = await exec.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row;
}

export async function findUserByGoogleSubject(exec: Executor, subject: string): Promise<UserRow | undefined> {
  const [row] = await exec.select().from(users).where(eq(users.googleSubject, subject)).limit(1);
  return row;
}

export async function findPublicUser(exec: Executor, userId: string): Promise<PublicUser | undefined> {
  const [row] = await exec.select(publicUserColumns).from(users).where(eq(users.id, userId)).limit(1);
  return row;
}

/** A new account: an email, and a password hash or a Google identity. */
export type NewAccount = Omit<typeof users.$inferInsert, 'id'>;

export async function insertUser(exec: Executor, account: NewAccount): Promise<PublicUser> {
  const [row] = await exec
    .insert(users)
    .values({ id: newId(), ...account })
    .returning(publicUserColumns);
  return row!;
}

export async function setUserPassword(
  exec: Executor,
  userId: string,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await exec.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId));
}

export type SessionRow = typeof sessions.$inferSelect;

export async function insertSession(exec: Executor, session: typeof sessions.$inferInsert): Promise<void> {
  await exec.insert(sessions).values(session);
}

/**
 * A wall-clock instant in milliseconds (sub-millisecond precision) as a SQL timestamp, kept to
 * the microsecond: orders a refresh's arrival against a concurrent rotation.
 */
const preciseTimestamp = (ms: number): SQL<Date> => sql<Date>`to_timestamp(${ms / 1000}::double precision)`;

/**
 * Rotates a live session's refresh secret, on condition that `presentedHash` is still the
 * current one: of two concurrent rotations with the same token exactly one updates the row.
 * Returns the rotated session, or undefined when the condition no longer held.
 */
export async function rotateSession(
  exec: Executor,
  sessionId: string,
  presentedHash: string,
  next: { refreshTokenHash: string; refreshExpiresAt: Date; rotatedAtMs: number },
) {
  const [row] = await exec
    .update(sessions)
    .set({
      refreshTokenHash: next.refreshTokenHash,
      previousRefreshTokenHash: presentedHash,
      rotatedAt: preciseTimestamp(next.rotatedAtMs),
      refreshExpiresAt: next.refreshExpiresAt,
    })
    .where(
      and(
        eq(sessions.id, sessionId),
        eq(sessions.refreshTokenHash, presentedHash),
        isNull(sessions.revokedAt),
      ),
    )
    .returning({
      id: sessions.id,
      userId: sessions.userId,
      tenantId: sessions.tenantId,
      rotatedAt: sessions.rotatedAt,
    });
  return row;
}

/**
 * Revokes a session whose replaced refresh secret (`presentedHash`) was presented again, unless
 * the rotation that replaced it happened after the request arrived (`arrivedAtMs`): that
 * request lost a race, it did not replay. Returns whether the session was revoked.
 */
export async function revokeReplayedSession(
  exec: Executor,
  sessionId: string,
  presentedHash: string,
  arrivedAtMs: number,
  now: Date,
): Promise<boolean> {
  const revoked = await revokeSessions(
    exec,
    { sessionId },
    'refresh_reuse',
    now,
    and(
      eq(sessions.previousRefreshTokenHash, presentedHash),
      or(isNull(sessions.rotatedAt), lt(sessions.rotatedAt, preciseTimestamp(arrivedAtMs))),
    ),
  );
  return revoked > 0;
}

export async function insertPasswordResetRequest(exec: Executor, email: string): Promise<void> {
  await exec.insert(passwordResetRequests).values({ id: newId(), email });
}

/**
 * Takes up to `limit` queued reset requests (deleting them) and returns their emails; several
 * instances skip each other's rows.
 */
export async function takePasswordResetRequests(exec: Executor, limit: number): Promise<string[]> {
  const claim = exec
    .select({ id: passwordResetRequests.id })
    .from(passwordResetRequests)
    .orderBy(passwordResetRequests.id)
    .limit(limit)
    .for('update', { skipLocked: true });
  const taken = await exec
    .delete(passwordResetRequests)
    .where(inArray(passwordResetRequests.id, claim))
    .returning({ email: passwordResetRequests.email });
  return taken.map((r) => r.email);
}

export async function insertPasswordReset(
  exec: Executor,
  reset: Omit<typeof passwordResets.$inferInsert, 'id'>,
): Promise<void> {
  await exec.insert(passwordResets).values({ id: newId(), ...reset });
}

export async function findPasswordResetByToken(exec: Executor, tokenHash: string) {
  const [row] = await exec
    .select()
    .from(passwordResets)
    .where(eq(passwordResets.tokenHash, tokenHash))
    .limit(1);
  return row;
}

/** Marks every open reset of the user used; returns the ids it marked. */
export async function useUpPasswordResets(exec: Executor, userId: string, now: Date): Promise<string[]> {
  const usedUp = await exec
    .update(passwordResets)
    .set({ usedAt: now })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)))
    .returning({ id: passwordResets.id });
  return usedUp.map((r) => r.id);
}
