import type { AppDeps } from '../../deps.js';
import { revokeSessions } from '../../platform/auth/sessions.js';
import { hashPassword, issueSecret, sha256 } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { type AuthCtx, nowOf } from './context.js';
import {
  findPasswordResetByToken,
  findUserByEmail,
  insertPasswordReset,
  insertPasswordResetRequest,
  setUserPassword,
  takePasswordResetRequests,
  useUpPasswordResets,
} from './store.js';

const RESET_TTL_MS = 60 * 60 * 1000;

/**
 * Always "accepted", whether or not the email exists, so the route cannot be used to probe
 * for accounts. The request path only queues the request (one INSERT, the same for every
 * email); the lookup, the token (only password accounts get one) and the mail are the
 * worker's (`deliverPasswordResets`), on its own schedule: neither the answer nor the requests
 * that follow it take longer for an email that has an account.
 */
export async function requestPasswordReset(ctx: AuthCtx, email: string): Promise<void> {
  await insertPasswordResetRequest(ctx.deps.database.db, email);
}

/** Requests handled per statement by the worker. */
const RESET_BATCH = 100;

/**
 * The worker's part: takes queued requests (deleting them; several instances skip each other's
 * rows) and issues a reset for each that names a password account. A request whose work fails
 * is logged and dropped (at most once: the user can ask again), never retried into a loop.
 */
export async function deliverPasswordResets(deps: AppDeps): Promise<number> {
  const db = deps.database.db;
  let handled = 0;
  for (;;) {
    const emails = await takePasswordResetRequests(db, RESET_BATCH);
    for (const email of emails) {
      await issuePasswordReset(deps, email).catch((err: unknown) =>
        deps.log.error({ err }, 'password reset request failed'),
      );
    }
    handled += emails.length;
    if (emails.length < RESET_BATCH) return handled;
  }
}

async function issuePasswordReset(deps: AppDeps, email: string): Promise<void> {
  const { database, config, mailer } = deps;
  const user = await findUserByEmail(database.db, email);
  if (!user?.passwordHash) return;
  const { token, hash, expiresAt } = issueSecret(deps.clock(), RESET_TTL_MS);
  await insertPasswordReset(database.db, { userId: user.id, tokenHash: hash, expiresAt });
  const link = `${config.appUrl}/reset-password/${token}`;
  await mailer.send({
    to: user.email,
    subject: 'Reset your password',
    text:
      `Someone asked to reset the password of your account.\n\n` +
      `Choose a new password here (the link works once, for one hour):\n${link}\n\n` +
      `If it was not you, ignore this message: your password stays unchanged.`,
    secrets: [token],
  });
}

/**
 * Single use: one conditional UPDATE uses up every open reset token of the user, and the
 * presented one must be among them, so two concurrent confirms cannot both succeed (the second
 * waits for the first's row locks, then finds nothing open). The new password ends every
 * session of the user.
 */
export async function confirmPasswordReset(ctx: AuthCtx, input: { token: string; password: string }) {
  const { database } = ctx.deps;
  const now = nowOf(ctx);
  const reset = await findPasswordResetByToken(database.db, sha256(input.token));
  if (!reset || reset.usedAt || reset.expiresAt.getTime() <= now.getTime()) {
    throw new AppError('INVALID_RESET_TOKEN');
  }
  const passwordHash = await hashPassword(input.password);
  await database.db.transaction(async (tx) => {
    const usedUp = await useUpPasswordResets(tx, reset.userId, now);
    if (!usedUp.includes(reset.id)) throw new AppError('INVALID_RESET_TOKEN');
    await setUserPassword(tx, reset.userId, passwordHash, now);
    await revokeSessions(tx, { userId: reset.userId }, 'password_reset', now);
  });
}
