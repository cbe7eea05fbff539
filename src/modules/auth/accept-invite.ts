import { isUniqueViolation } from '../../db/errors.js';
import { recordAudit } from '../../platform/audit.js';
import { hashPassword, sha256 } from '../../platform/crypto.js';
import { AppError, validationError } from '../../platform/errors.js';
import { findAcceptedMembership, findInvite, joinByInvite } from '../tenants/index.js';
import { type AuthCtx, nowOf } from './context.js';
import { verifyGoogleIdToken } from './google.js';
import { assertPassword } from './login.js';
import { openSession, type SignedIn } from './sign-in.js';
import { findUserByEmail, insertUser, type PublicUser, type UserRow } from './store.js';

interface AcceptInviteInput {
  token: string;
  email?: string | undefined;
  name?: string | undefined;
  password?: string | undefined;
  /** A Google ID token: how an existing Google account proves it is the invitee. */
  idToken?: string | undefined;
}

/**
 * An emailed invite proves the address, not the ownership of an account already registered
 * with it (sign-up does not verify emails: anyone could have registered it first). So the
 * invitee proves control of that account: its password, or a Google ID token of that Google
 * account. Whoever owns the address but not the account takes it back with a password reset.
 */
async function proveAccountOwner(ctx: AuthCtx, existing: UserRow, input: AcceptInviteInput) {
  if (existing.passwordHash) {
    // Unlike a link (401 below), a missing password is a 400: the invite names this account.
    if (!input.password) {
      throw validationError([
        { path: 'password', message: 'password of the existing account is required to accept this invite' },
      ]);
    }
    return assertPassword(existing, input.password);
  }
  if (!input.idToken) {
    throw new AppError('AUTH_PROVIDER_MISMATCH', 'This account signs in with Google: send its ID token');
  }
  const identity = await verifyGoogleIdToken(ctx.deps.config, input.idToken, nowOf(ctx));
  const sameSubject = existing.googleSubject ? existing.googleSubject === identity.subject : true;
  if (
    existing.authProvider !== 'google' ||
    !sameSubject ||
    identity.email !== existing.email.trim().toLowerCase()
  ) {
    throw new AppError('AUTH_PROVIDER_MISMATCH', 'The Google sign-in is not the one of this account');
  }
}

/**
 * Joins the invite's tenant and signs in there. An existing account must prove it is the
 * invitee's: with an emailed invite by its password (or, for a Google account, a Google ID
 * token of it); with a link, which proves nothing about the email, by its password. Without an
 * account, one is created (password required). Joining writes MEMBER_JOINED.
 */
export async function acceptInvite(ctx: AuthCtx, input: AcceptInviteInput): Promise<SignedIn> {
  const db = ctx.deps.database.db;
  const now = nowOf(ctx);
  const tokenHash = sha256(input.token);
  const invite = await findInvite(db, tokenHash, now);
  if (!invite) throw new AppError('INVALID_INVITE_TOKEN');

  const email = invite.kind === 'member' ? invite.email : input.email;
  if (!email) {
    throw validationError([{ path: 'email', message: 'email is required to accept an invite link' }]);
  }
  const existing = await findUserByEmail(db, email);
  if (existing && invite.kind === 'member') await proveAccountOwner(ctx, existing, input);
  // A link names nobody: a missing password is simply wrong credentials (401).
  if (existing && invite.kind === 'link') await assertPassword(existing, input.password);
  if (!existing && !input.password) {
    throw validationError([{ path: 'password', message: 'password is required to create an account' }]);
  }
  const passwordHash = existing ? null : await hashPassword(input.password!);

  try {
    return await db.transaction(async (tx) => {
      let user: PublicUser;
      if (existing) {
        user = { id: existing.id, email: existing.email, name: existing.name };
        if (await findAcceptedMembership(tx, user.id, invite.tenant.id)) throw new AppError('MEMBER_EXISTS');
      } else {
        user = await insertUser(tx, { email, name: input.name ?? null, passwordHash });
      }
      const joined = await joinByInvite(tx, invite, tokenHash, user, now);
      const role = joined.role;
      await recordAudit(tx, {
        tenantId: invite.tenant.id,
        actorId: user.id,
        ipAddress: ctx.ip,
        action: 'MEMBER_JOINED',
        entityType: 'member',
        entityId: joined.memberId,
        metadata:
          invite.kind === 'member'
            ? { via: 'email', role }
            : { via: 'link', role, inviteLinkId: invite.linkId },
      });
      return openSession(ctx, tx, { user, tenant: invite.tenant, role }, 'invite');
    });
  } catch (err) {
    if (isUniqueViolation(err, 'members_tenant_email_key')) throw new AppError('MEMBER_EXISTS');
    if (isUniqueViolation(err, 'users_email_lower_key')) throw new AppError('EMAIL_EXISTS');
    throw err;
  }
}
