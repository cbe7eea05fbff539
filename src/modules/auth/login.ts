import { hashPassword, randomToken, verifyPassword } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import type { AuthCtx } from './context.js';
import { type SignedIn, signInMember } from './sign-in.js';
import { findUserByEmail } from './store.js';

let dummyHash: Promise<string> | null = null;
/** A real argon2id hash to verify against when the email is unknown, so both paths cost the same. */
export const timingDummyHash = (): Promise<string> => {
  dummyHash ??= hashPassword(randomToken(16));
  return dummyHash;
};

/**
 * The account's own password: a Google account has none (AUTH_PROVIDER_MISMATCH); a wrong or
 * missing one is AUTH_INVALID_CREDENTIALS.
 */
export async function assertPassword(
  user: { passwordHash: string | null },
  password: string | undefined,
): Promise<void> {
  if (!user.passwordHash) throw new AppError('AUTH_PROVIDER_MISMATCH', 'This account signs in with Google');
  if (!password || !(await verifyPassword(user.passwordHash, password))) {
    throw new AppError('AUTH_INVALID_CREDENTIALS');
  }
}

interface LoginInput {
  email: string;
  password: string;
  tenantId?: string | undefined;
}

export async function login(ctx: AuthCtx, input: LoginInput): Promise<SignedIn> {
  const user = await findUserByEmail(ctx.deps.database.db, input.email);
  if (!user) {
    await verifyPassword(await timingDummyHash(), input.password);
    throw new AppError('AUTH_INVALID_CREDENTIALS');
  }
  await assertPassword(user, input.password);
  return signInMember(ctx, user, input.tenantId, 'password');
}
