import { createHmac } from 'node:crypto';
import type { Executor } from '../../db/client.js';
import { recordAudit } from '../../platform/audit.js';
import type { Role } from '../../platform/auth/guard.js';
import { findSession, revokeSessions } from '../../platform/auth/sessions.js';
import type { ServiceCtx } from '../../platform/context.js';
import { audit } from '../../platform/context.js';
import { issueSecret, safeEqual, sha256 } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { findAcceptedMembership, findTenantRef, type TenantRef } from '../tenants/index.js';
import { type AuthCtx, nowOf } from './context.js';
import {
  findPublicUser,
  insertSession,
  type PublicUser,
  revokeReplayedSession,
  rotateSession,
  type SessionRow,
} from './store.js';

/** What every sign-in (register, login, Google, invite acceptance) answers with, plus the refresh token for the cookie. */
export interface SignedIn {
  user: PublicUser;
  tenant: TenantRef;
  role: Role;
  accessToken: string;
  refreshToken: string;
}

type SignInMethod = 'password' | 'register' | 'google' | 'invite';

/**
 * Refresh token format: `<sessionId>.<secret>`; the session row keeps only sha256(secret).
 * Session ids are not secret (the access token's `sid`): the secret is what proves the holder.
 */
const formatRefreshToken = (sessionId: string, secret: string): string => `${sessionId}.${secret}`;

function parseRefreshToken(token: string): { sessionId: string; secret: string } | null {
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  const sessionId = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  if (!isUuid(sessionId) || secret.length < 16 || secret.length > 256) return null;
  return { sessionId, secret };
}

/** A new refresh secret, valid for the refresh TTL from `now` (each sign-in and each rotation). */
const issueRefreshSecret = (ctx: AuthCtx, now: Date) =>
  issueSecret(now.getTime(), ctx.deps.config.refreshTokenTtlSeconds * 1000);

/**
 * Opens a session (one row per sign-in; the refresh token rotates inside it), records
 * USER_LOGIN in the same transaction, and signs the first access token.
 */
export async function openSession(
  ctx: AuthCtx,
  exec: Executor,
  who: { user: PublicUser; tenant: TenantRef; role: Role },
  method: SignInMethod,
): Promise<SignedIn> {
  const sessionId = newId();
  const refresh = issueRefreshSecret(ctx, nowOf(ctx));
  await insertSession(exec, {
    id: sessionId,
    userId: who.user.id,
    tenantId: who.tenant.id,
    refreshTokenHash: refresh.hash,
    refreshExpiresAt: refresh.expiresAt,
    ipAddress: ctx.ip,
    userAgent: ctx.userAgent,
  });
  await recordAudit(exec, {
    tenantId: who.tenant.id,
    actorId: who.user.id,
    ipAddress: ctx.ip,
    action: 'USER_LOGIN',
    entityType: 'user',
    entityId: who.user.id,
    // No session id: audit readers must not learn what would address a session.
    metadata: { userAgent: ctx.userAgent, method },
  });
  const accessToken = await ctx.deps.tokens.signAccess({
    userId: who.user.id,
    tenantId: who.tenant.id,
    sessionId,
  });
  return {
    user: { id: who.user.id, email: who.user.email, name: who.user.name },
    tenant: { id: who.tenant.id, name: who.tenant.name, slug: who.tenant.slug },
    role: who.role,
    accessToken,
    refreshToken: formatRefreshToken(sessionId, refresh.token),
  };
}

/**
 * Signs an existing, verified account in: to its membership of `tenantId` when given, otherwise
 * to its oldest. No accepted membership (only pending invites, or not a member of the tenant
 * asked for) is AUTH_INVALID_CREDENTIALS with `noMembership` as its message.
 */
export async function signInMember(
  ctx: AuthCtx,
  user: PublicUser,
  tenantId: string | undefined,
  method: SignInMethod,
  noMembership?: string,
): Promise<SignedIn> {
  const db = ctx.deps.database.db;
  const membership = await findAcceptedMembership(db, user.id, tenantId);
  if (!membership) throw new AppError('AUTH_INVALID_CREDENTIALS', noMembership);
  return db.transaction((tx) =>
    openSession(ctx, tx, { user, tenant: membership.tenant, role: membership.role }, method),
  );
}

/**
 * Wall-clock milliseconds with sub-millisecond precision (stored to the microsecond): orders a
 * refresh request's arrival against a concurrent rotation. Real time, not the injectable clock,
 * because it orders events rather than checking an expiry.
 */
const preciseNow = (): number => performance.timeOrigin + performance.now();

/**
 * The refresh secret a rotation replaces `secret` with: derived from it (HMAC under a key of
 * the service), not drawn at random, so the rotation can be answered again — the same new
 * secret — without the session keeping anything but hashes. Only the service can derive it.
 */
function nextRefreshSecret(ctx: AuthCtx, sessionId: string, secret: string): string {
  const key = createHmac('sha256', ctx.deps.config.jwtSecret).update('refresh-rotation').digest();
  return createHmac('sha256', key).update(`${sessionId}.${secret}`).digest('base64url');
}

type RotatedSession = Pick<SessionRow, 'id' | 'userId' | 'tenantId'> & { rotatedAt: Date };

/**
 * The pair a rotation issued: the derived refresh secret and an access token issued at the
 * rotation's time (as stored), so the same rotation always answers the same two tokens.
 */
async function rotationPair(ctx: AuthCtx, session: RotatedSession, nextSecret: string) {
  const accessToken = await ctx.deps.tokens.signAccess(
    { userId: session.userId, tenantId: session.tenantId, sessionId: session.id },
    Math.floor(session.rotatedAt.getTime() / 1000),
  );
  return { accessToken, refreshToken: formatRefreshToken(session.id, nextSecret) };
}

/**
 * Rotates the refresh token of a live session and signs a new access token.
 *
 * - Grace window (`REFRESH_GRACE_SECONDS`, 5 s by default): the token rotated away last,
 *   presented again within that time of its rotation while no later rotation happened, answers
 *   the same new pair as the rotation did. Two tabs refreshing at once therefore both succeed,
 *   with the same tokens, whichever of them won the race.
 * - Outside the window, that token presented again is a replay: the whole session is revoked
 *   (`refresh_reuse`), so a stolen token dies with every token issued after it.
 * - Any other unknown secret is refused without touching the session: session ids are not
 *   secret (the access token's `sid`), so a guessed secret must not be a kill switch.
 * - Two concurrent refreshes with the same current token: the UPDATE is conditional on the old
 *   hash, so exactly one rotates; the other answers the winner's pair (grace window), or, with
 *   a window of 0, AUTH_INVALID_REFRESH_TOKEN without revoking, also when it reads the row only
 *   after the winner's commit (its token was still current when it arrived: `rotated_at` is
 *   later than its arrival, compared at microsecond precision).
 * - Each rotation extends the refresh expiry to now + refresh TTL (sliding window).
 */
export async function refreshSession(
  ctx: AuthCtx,
  token: string | undefined,
): Promise<{ accessToken: string; refreshToken: string }> {
  const arrivedAt = preciseNow();
  if (!token) throw new AppError('AUTH_NO_REFRESH_TOKEN');
  const parsed = parseRefreshToken(token);
  if (!parsed) throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
  const { database, log, config } = ctx.deps;
  const db = database.db;
  const readSession = () => findSession(db, parsed.sessionId);
  const now = nowOf(ctx);
  const presented = sha256(parsed.secret);
  const nextSecret = nextRefreshSecret(ctx, parsed.sessionId, parsed.secret);
  const nextHash = sha256(nextSecret);
  type FoundSession = NonNullable<Awaited<ReturnType<typeof readSession>>>;
  /**
   * Whether the rotation this token caused is still the session's last one and within the
   * grace window (a request that arrived before that rotation, the loser of a race, is too).
   */
  const withinGrace = (row: FoundSession): row is FoundSession & { rotatedAt: Date } =>
    config.refreshGraceSeconds > 0 &&
    row.rotatedAt !== null &&
    row.previousRefreshTokenHash !== null &&
    safeEqual(presented, row.previousRefreshTokenHash) &&
    safeEqual(nextHash, row.refreshTokenHash) &&
    now.getTime() - row.rotatedAt.getTime() <= config.refreshGraceSeconds * 1000;
  /** That rotation's pair again, if the session is still live. */
  const answerAgain = (row: FoundSession & { rotatedAt: Date }) => {
    if (row.revokedAt || !row.memberId) throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
    return rotationPair(ctx, row, nextSecret);
  };

  const row = await readSession();
  if (!row || row.revokedAt || row.refreshExpiresAt.getTime() <= now.getTime()) {
    throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
  }
  if (!safeEqual(presented, row.refreshTokenHash)) {
    const replayed =
      row.previousRefreshTokenHash !== null && safeEqual(presented, row.previousRefreshTokenHash);
    if (!replayed) throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
    if (withinGrace(row)) return answerAgain(row);
    if (await revokeReplayedSession(db, row.id, presented, arrivedAt, now)) {
      log.warn({ sessionId: row.id, userId: row.userId }, 'refresh token reuse detected: session revoked');
    }
    throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
  }
  // The membership behind the session has ended: the session cannot be extended.
  if (!row.memberId) throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
  const expiresAt = new Date(now.getTime() + config.refreshTokenTtlSeconds * 1000);
  const rotated = await rotateSession(db, row.id, presented, {
    refreshTokenHash: nextHash,
    refreshExpiresAt: expiresAt,
    rotatedAtMs: preciseNow(),
  });
  if (rotated?.rotatedAt) return rotationPair(ctx, { ...rotated, rotatedAt: rotated.rotatedAt }, nextSecret);
  // A concurrent refresh with the same token rotated first: its pair is this token's too.
  const after = await readSession();
  if (after && withinGrace(after)) return answerAgain(after);
  throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
}

/** Ends the caller's session: its access and refresh tokens stop working at once. */
export async function logout(ctx: ServiceCtx, sessionId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await revokeSessions(tx, { sessionId, tenantId: ctx.tenantId, userId: ctx.actorId! }, 'logout', ctx.now);
    await audit(ctx, tx, { action: 'USER_LOGOUT', entityType: 'user', entityId: ctx.actorId });
  });
}

/** The signed-in user, their tenant and role. */
export async function getMe(ctx: ServiceCtx, role: Role) {
  const [user, tenant] = await Promise.all([
    findPublicUser(ctx.db, ctx.actorId!),
    findTenantRef(ctx.db, ctx.tenantId),
  ]);
  if (!user || !tenant) throw new AppError('AUTH_TOKEN_REVOKED');
  return { user, tenant, role };
}
