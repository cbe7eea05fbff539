import { isUniqueViolation } from '../../db/errors.js';
import { users } from '../../db/schema/index.js';
import { hashPassword } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { provisionTenant } from '../tenants/provision.js';
import type { AuthCtx } from './context.js';
import { findUserByEmail, openSession, type SignedIn, userColumns } from './session.js';

export interface RegisterInput {
  email: string;
  password: string;
  name?: string | undefined;
  companyName: string;
}

/**
 * User, tenant, OWNER membership and session in one transaction: all of it exists, or none.
 * The email is not verified, so an account's email proves nothing about who holds it: invite
 * acceptance asks the account's own credentials (see acceptInvite).
 */
export async function register(ctx: AuthCtx, input: RegisterInput): Promise<SignedIn> {
  try {
    const passwordHash = await hashPassword(input.password);
    return await ctx.deps.database.db.transaction(async (tx) => {
      if (await findUserByEmail(tx, input.email)) throw new AppError('EMAIL_EXISTS');
      const [user] = await tx
        .insert(users)
        .values({ id: newId(), email: input.email, name: input.name ?? null, passwordHash })
        .returning(userColumns);
      const { tenant } = await provisionTenant(tx, {
        name: input.companyName,
        owner: { userId: user!.id, email: user!.email },
        plan: ctx.deps.config.defaultPlan,
      });
      return openSession(ctx, tx, { user: user!, tenant, role: 'OWNER' }, 'register');
    });
  } catch (err) {
    throw signUpError(ctx, err);
  }
}

/**
 * Known conflicts keep their codes (a concurrent sign-up can still trip a unique index);
 * anything else is logged with its cause and answered as REGISTRATION_FAILED, leaking nothing.
 */
export function signUpError(ctx: AuthCtx, err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isUniqueViolation(err, 'users_email_lower_key')) return new AppError('EMAIL_EXISTS');
  if (isUniqueViolation(err, 'tenants_name_lower_key')) return new AppError('TENANT_EXISTS');
  ctx.deps.log.error({ err }, 'registration failed');
  return new AppError('REGISTRATION_FAILED');
}
