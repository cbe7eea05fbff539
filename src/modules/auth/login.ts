import { hashPassword, randomToken, verifyPassword } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import type { AuthCtx } from './context.js';
import { findMembership, findUserByEmail, openSession, type SignedIn } from './session.js';

let dummyHash: Promise<string> | null = null;
/** A real argon2id hash to verify against when the email is unknown, so both paths cost the same. */
export const timingDummyHash = (): Promise<string> => {
  dummyHash ??= hashPassword(randomToken(16));
  return dummyHash;
};

export interface LoginInput {
  email: string;
  password: string;
  tenantId?: string | undefined;
}

export async function login(ctx: AuthCtx, input: LoginInput): Promise<SignedIn> {
  const db = ctx.deps.database.db;
  const user = await findUserByEmail(db, input.email);
  if (!user) {
    await verifyPassword(await timingDummyHash(), input.password);
    throw new AppError('AUTH_INVALID_CREDENTIALS');
  }
  if (!user.passwordHash) {
    throw new AppError('AUTH_PROVIDER_MISMATCH', 'This account signs in with Google');
  }
  if (!(await verifyPassword(user.passwordHash, input.password))) {
    throw new AppError('AUTH_INVALID_CREDENTIALS');
  }
  // No accepted membership (only pending invites, or not a member of the requested tenant).
  const membership = await findMembership(db, user.id, input.tenantId);
  if (!membership) throw new AppError('AUTH_INVALID_CREDENTIALS');
  return db.transaction((tx) =>
    openSession(ctx, tx, { user, tenant: membership.tenant, role: membership.role }, 'password'),
  );
}
