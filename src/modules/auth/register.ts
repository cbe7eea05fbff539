import { isUniqueViolation } from '../../db/errors.js';
import { hashPassword } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { provisionTenant } from '../tenants/index.js';
import type { AuthCtx } from './context.js';
import { openSession, type SignedIn } from './sign-in.js';
import { insertUser, type NewAccount } from './store.js';

interface RegisterInput {
  email: string;
  password: string;
  name?: string | undefined;
  companyName: string;
}

/**
 * The email is not verified, so an account's email proves nothing about who holds it: invite
 * acceptance asks the account's own credentials (see acceptInvite).
 */
export async function register(ctx: AuthCtx, input: RegisterInput): Promise<SignedIn> {
  try {
    const passwordHash = await hashPassword(input.password);
    return await createOwnerAccount(
      ctx,
      { email: input.email, name: input.name ?? null, passwordHash },
      input.companyName,
      'register',
    );
  } catch (err) {
    throw signUpError(ctx, err);
  }
}

/**
 * A sign-up (registration or Google): user, tenant, OWNER membership and session in one
 * transaction, so all of it exists or none. A taken email or company name trips its unique
 * index; signUpError names the conflict.
 */
export function createOwnerAccount(
  ctx: AuthCtx,
  account: NewAccount,
  companyName: string,
  method: 'register' | 'google',
): Promise<SignedIn> {
  return ctx.deps.database.db.transaction(async (tx) => {
    const user = await insertUser(tx, account);
    const { tenant } = await provisionTenant(tx, {
      name: companyName,
      owner: { userId: user.id, email: user.email },
      plan: ctx.deps.config.defaultPlan,
    });
    return openSession(ctx, tx, { user, tenant, role: 'OWNER' }, method);
  });
}

/**
 * Known conflicts keep their codes (EMAIL_EXISTS, TENANT_EXISTS, from the unique indexes);
 * anything else is logged with its cause and answered as REGISTRATION_FAILED, leaking nothing.
 */
export function signUpError(ctx: AuthCtx, err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isUniqueViolation(err, 'users_email_lower_key')) return new AppError('EMAIL_EXISTS');
  if (isUniqueViolation(err, 'tenants_name_lower_key')) return new AppError('TENANT_EXISTS');
  ctx.deps.log.error({ err }, 'registration failed');
  return new AppError('REGISTRATION_FAILED');
}
