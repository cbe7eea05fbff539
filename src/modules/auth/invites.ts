import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { inviteLinks, members, type Role, tenants, users } from '../../db/schema/index.js';
import { recordAudit } from '../../platform/audit.js';
import { ROLE_RANK } from '../../platform/auth/guard.js';
import { hashPassword, sha256, verifyPassword } from '../../platform/crypto.js';
import { AppError, validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertPlanAllows } from '../pricing/enforce.js';
import { type AuthCtx, nowOf } from './context.js';
import { verifyGoogleIdToken } from './google.js';
import {
  findMembership,
  findUserByEmail,
  openSession,
  type PublicUser,
  type SignedIn,
  tenantColumns,
  userColumns,
} from './session.js';

export interface AcceptInviteInput {
  token: string;
  email?: string | undefined;
  name?: string | undefined;
  password?: string | undefined;
  /** A Google ID token: how an existing Google account proves it is the invitee. */
  idToken?: string | undefined;
}

type Invite =
  | { kind: 'member'; memberId: string; tenantId: string; email: string }
  | { kind: 'link'; linkId: string; tenantId: string; role: Role; createdBy: string };

type ExistingUser = NonNullable<Awaited<ReturnType<typeof findUserByEmail>>>;

/**
 * Two kinds of token, both stored as sha256: an emailed invite (a pending member row, single
 * use) and an invite link (`invite_links`, usable by several people until it expires).
 */
async function findInvite(exec: Executor, tokenHash: string, now: Date): Promise<Invite | null> {
  const [member] = await exec
    .select({
      id: members.id,
      tenantId: members.tenantId,
      email: members.email,
      expiresAt: members.inviteExpiresAt,
    })
    .from(members)
    .where(and(eq(members.inviteTokenHash, tokenHash), eq(members.isPending, true)))
    .limit(1);
  if (member) {
    if (member.expiresAt && member.expiresAt.getTime() <= now.getTime()) return null;
    return { kind: 'member', memberId: member.id, tenantId: member.tenantId, email: member.email };
  }
  const [link] = await exec.select().from(inviteLinks).where(eq(inviteLinks.tokenHash, tokenHash)).limit(1);
  if (!link || link.expiresAt.getTime() <= now.getTime() || !link.createdBy) return null;
  const invite = {
    kind: 'link' as const,
    linkId: link.id,
    tenantId: link.tenantId,
    role: link.role,
    createdBy: link.createdBy,
  };
  return (await creatorMayGrant(exec, invite)) ? invite : null;
}

/**
 * A link speaks for its creator: it works only while the creator is still an accepted member
 * of the tenant with a role ranked at least the link's. Inside the joining transaction the
 * creator's row is locked (FOR SHARE), so a concurrent removal or demotion waits for the join
 * or makes it fail.
 */
async function creatorMayGrant(
  exec: Executor,
  link: Extract<Invite, { kind: 'link' }>,
  lock = false,
): Promise<boolean> {
  const query = exec
    .select({ role: members.role })
    .from(members)
    .where(
      and(
        eq(members.tenantId, link.tenantId),
        eq(members.userId, link.createdBy),
        eq(members.isPending, false),
      ),
    )
    .limit(1);
  const [creator] = lock ? await query.for('share') : await query;
  return !!creator && ROLE_RANK[creator.role] >= ROLE_RANK[link.role];
}

/**
 * An emailed invite proves the address, not the ownership of an account already registered
 * with it (sign-up does not verify emails: anyone could have registered it first). So the
 * invitee proves control of that account: its password, or a Google ID token of that Google
 * account. Whoever owns the address but not the account takes it back with a password reset.
 */
async function proveAccountOwner(ctx: AuthCtx, existing: ExistingUser, input: AcceptInviteInput) {
  if (existing.passwordHash) {
    if (!input.password) {
      throw validationError([
        { path: 'password', message: 'password of the existing account is required to accept this invite' },
      ]);
    }
    if (!(await verifyPassword(existing.passwordHash, input.password))) {
      throw new AppError('AUTH_INVALID_CREDENTIALS');
    }
    return;
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
  if (existing && invite.kind === 'link') {
    if (!existing.passwordHash) {
      throw new AppError('AUTH_PROVIDER_MISMATCH', 'This account signs in with Google');
    }
    if (!input.password || !(await verifyPassword(existing.passwordHash, input.password))) {
      throw new AppError('AUTH_INVALID_CREDENTIALS');
    }
  }
  if (!existing && !input.password) {
    throw validationError([{ path: 'password', message: 'password is required to create an account' }]);
  }
  const passwordHash = existing ? null : await hashPassword(input.password!);

  try {
    return await db.transaction(async (tx) => {
      let user: PublicUser;
      if (existing) {
        user = { id: existing.id, email: existing.email, name: existing.name };
        if (await findMembership(tx, user.id, invite.tenantId)) throw new AppError('MEMBER_EXISTS');
      } else {
        const [created] = await tx
          .insert(users)
          .values({ id: newId(), email, name: input.name ?? null, passwordHash })
          .returning(userColumns);
        user = created!;
      }
      const joined =
        invite.kind === 'member'
          ? await acceptEmailedInvite(tx, invite, tokenHash, user.id, now)
          : await joinThroughLink(tx, invite, user, now);
      const role = joined.role;
      await recordAudit(tx, {
        tenantId: invite.tenantId,
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
      const [tenant] = await tx.select(tenantColumns).from(tenants).where(eq(tenants.id, invite.tenantId));
      return openSession(ctx, tx, { user, tenant: tenant!, role }, 'invite');
    });
  } catch (err) {
    if (isUniqueViolation(err, 'members_tenant_email_key')) throw new AppError('MEMBER_EXISTS');
    if (isUniqueViolation(err, 'users_email_lower_key')) throw new AppError('EMAIL_EXISTS');
    throw err;
  }
}

interface Joined {
  memberId: string;
  role: Role;
}

/** Single use: the conditional UPDATE claims the token, so a concurrent second accept finds nothing. */
async function acceptEmailedInvite(
  tx: Executor,
  invite: Extract<Invite, { kind: 'member' }>,
  tokenHash: string,
  userId: string,
  now: Date,
): Promise<Joined> {
  const [member] = await tx
    .update(members)
    .set({ userId, isPending: false, inviteTokenHash: null, updatedAt: now })
    .where(
      and(
        eq(members.tenantId, invite.tenantId),
        eq(members.id, invite.memberId),
        eq(members.inviteTokenHash, tokenHash),
        eq(members.isPending, true),
      ),
    )
    .returning({ memberId: members.id, role: members.role });
  if (!member) throw new AppError('INVALID_INVITE_TOKEN');
  return member;
}

/**
 * A new membership with the link's role. An outstanding emailed invite of the same address in
 * that tenant is consumed by it (the person has joined), taking the link's role. The creator's
 * right to grant that role is checked again here, under lock.
 */
async function joinThroughLink(
  tx: Executor,
  invite: Extract<Invite, { kind: 'link' }>,
  user: PublicUser,
  now: Date,
): Promise<Joined> {
  if (!(await creatorMayGrant(tx, invite, true))) throw new AppError('INVALID_INVITE_TOKEN');
  const [pending] = await tx
    .update(members)
    .set({ userId: user.id, role: invite.role, isPending: false, inviteTokenHash: null, updatedAt: now })
    .where(
      and(
        eq(members.tenantId, invite.tenantId),
        sql`lower(${members.email}) = lower(${user.email})`,
        eq(members.isPending, true),
      ),
    )
    .returning({ memberId: members.id, role: members.role });
  if (pending) return pending;
  await assertPlanAllows(tx, invite.tenantId, 'members');
  const memberId = newId();
  await tx.insert(members).values({
    id: memberId,
    tenantId: invite.tenantId,
    userId: user.id,
    email: user.email,
    role: invite.role,
    invitedBy: invite.createdBy,
  });
  return { memberId, role: invite.role };
}
