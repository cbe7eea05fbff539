import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { inviteLinks, members, type Role, tenants, users } from '../../db/schema/index.js';
import { recordAudit } from '../../platform/audit.js';
import { ROLE_RANK } from '../../platform/auth/guard.js';
import { hashPassword, sha256 } from '../../platform/crypto.js';
import { AppError, validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertPlanAllows } from '../pricing/index.js';
import { type AuthCtx, nowOf } from './context.js';
import { verifyGoogleIdToken } from './google.js';
import { assertPassword } from './login.js';
import {
  findMembership,
  findUserByEmail,
  openSession,
  type PublicTenant,
  type PublicUser,
  type SignedIn,
  tenantColumns,
  userColumns,
} from './sign-in.js';

interface AcceptInviteInput {
  token: string;
  email?: string | undefined;
  name?: string | undefined;
  password?: string | undefined;
  /** A Google ID token: how an existing Google account proves it is the invitee. */
  idToken?: string | undefined;
}

type Invite =
  | { kind: 'member'; memberId: string; tenant: PublicTenant; email: string }
  | { kind: 'link'; linkId: string; tenant: PublicTenant; role: Role; createdBy: string };

type ExistingUser = NonNullable<Awaited<ReturnType<typeof findUserByEmail>>>;

/**
 * A link speaks for its creator: it works only while the creator is an accepted member of the
 * tenant with a role ranked at least the link's.
 */
const creatorMayGrant = (creatorRole: Role | null, linkRole: Role): boolean =>
  creatorRole !== null && ROLE_RANK[creatorRole] >= ROLE_RANK[linkRole];

/**
 * Two kinds of token, both stored as sha256: an emailed invite (a pending member row, single
 * use) and an invite link (`invite_links`, usable by several people until it expires). Each
 * comes with its tenant, and a link with its creator's role.
 */
async function findInvite(exec: Executor, tokenHash: string, now: Date): Promise<Invite | null> {
  const [member] = await exec
    .select({
      id: members.id,
      email: members.email,
      expiresAt: members.inviteExpiresAt,
      tenant: tenantColumns,
    })
    .from(members)
    .innerJoin(tenants, eq(tenants.id, members.tenantId))
    .where(and(eq(members.inviteTokenHash, tokenHash), eq(members.isPending, true)))
    .limit(1);
  if (member) {
    if (member.expiresAt && member.expiresAt.getTime() <= now.getTime()) return null;
    return { kind: 'member', memberId: member.id, tenant: member.tenant, email: member.email };
  }
  const [link] = await exec
    .select({
      id: inviteLinks.id,
      role: inviteLinks.role,
      createdBy: inviteLinks.createdBy,
      expiresAt: inviteLinks.expiresAt,
      creatorRole: members.role,
      tenant: tenantColumns,
    })
    .from(inviteLinks)
    .innerJoin(tenants, eq(tenants.id, inviteLinks.tenantId))
    .leftJoin(
      members,
      and(
        eq(members.tenantId, inviteLinks.tenantId),
        eq(members.userId, inviteLinks.createdBy),
        eq(members.isPending, false),
      ),
    )
    .where(eq(inviteLinks.tokenHash, tokenHash))
    .limit(1);
  if (!link || link.expiresAt.getTime() <= now.getTime() || !link.createdBy) return null;
  if (!creatorMayGrant(link.creatorRole, link.role)) return null;
  return { kind: 'link', linkId: link.id, tenant: link.tenant, role: link.role, createdBy: link.createdBy };
}

/**
 * An emailed invite proves the address, not the ownership of an account already registered
 * with it (sign-up does not verify emails: anyone could have registered it first). So the
 * invitee proves control of that account: its password, or a Google ID token of that Google
 * account. Whoever owns the address but not the account takes it back with a password reset.
 */
async function proveAccountOwner(ctx: AuthCtx, existing: ExistingUser, input: AcceptInviteInput) {
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
        if (await findMembership(tx, user.id, invite.tenant.id)) throw new AppError('MEMBER_EXISTS');
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
        eq(members.tenantId, invite.tenant.id),
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
 * right to grant that role is checked again here with the creator's row locked (FOR SHARE), so
 * a concurrent removal or demotion waits for the join or makes it fail.
 */
async function joinThroughLink(
  tx: Executor,
  invite: Extract<Invite, { kind: 'link' }>,
  user: PublicUser,
  now: Date,
): Promise<Joined> {
  const [creator] = await tx
    .select({ role: members.role })
    .from(members)
    .where(
      and(
        eq(members.tenantId, invite.tenant.id),
        eq(members.userId, invite.createdBy),
        eq(members.isPending, false),
      ),
    )
    .limit(1)
    .for('share');
  if (!creatorMayGrant(creator?.role ?? null, invite.role)) throw new AppError('INVALID_INVITE_TOKEN');
  const [pending] = await tx
    .update(members)
    .set({ userId: user.id, role: invite.role, isPending: false, inviteTokenHash: null, updatedAt: now })
    .where(
      and(
        eq(members.tenantId, invite.tenant.id),
        sql`lower(${members.email}) = lower(${user.email})`,
        eq(members.isPending, true),
      ),
    )
    .returning({ memberId: members.id, role: members.role });
  if (pending) return pending;
  await assertPlanAllows(tx, invite.tenant.id, 'members', now);
  const memberId = newId();
  await tx.insert(members).values({
    id: memberId,
    tenantId: invite.tenant.id,
    userId: user.id,
    email: user.email,
    role: invite.role,
    invitedBy: invite.createdBy,
  });
  return { memberId, role: invite.role };
}
