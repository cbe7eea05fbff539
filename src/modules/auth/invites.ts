import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { inviteLinks, members, type Role, tenants, users } from '../../db/schema/index.js';
import { hashPassword, sha256, verifyPassword } from '../../platform/crypto.js';
import { AppError, validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertPlanAllows } from '../pricing/enforce.js';
import { type AuthCtx, nowOf } from './context.js';
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
}

type Invite =
  | { kind: 'member'; memberId: string; tenantId: string; email: string }
  | { kind: 'link'; tenantId: string; role: Role; createdBy: string | null };

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
  if (!link || link.expiresAt.getTime() <= now.getTime()) return null;
  return { kind: 'link', tenantId: link.tenantId, role: link.role, createdBy: link.createdBy };
}

/**
 * Joins the invite's tenant and signs in there. An emailed token proves the address, so an
 * existing account is linked without its password; a link proves nothing about the email, so
 * an existing account must give its password. Without an account, one is created (password
 * required).
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
      const role =
        invite.kind === 'member'
          ? await acceptEmailedInvite(tx, invite, tokenHash, user.id, now)
          : await joinThroughLink(tx, invite, user, now);
      const [tenant] = await tx.select(tenantColumns).from(tenants).where(eq(tenants.id, invite.tenantId));
      return openSession(ctx, tx, { user, tenant: tenant!, role }, 'invite');
    });
  } catch (err) {
    if (isUniqueViolation(err, 'members_tenant_email_key')) throw new AppError('MEMBER_EXISTS');
    if (isUniqueViolation(err, 'users_email_lower_key')) throw new AppError('EMAIL_EXISTS');
    throw err;
  }
}

/** Single use: the conditional UPDATE claims the token, so a concurrent second accept finds nothing. */
async function acceptEmailedInvite(
  tx: Executor,
  invite: Extract<Invite, { kind: 'member' }>,
  tokenHash: string,
  userId: string,
  now: Date,
): Promise<Role> {
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
    .returning({ role: members.role });
  if (!member) throw new AppError('INVALID_INVITE_TOKEN');
  return member.role;
}

/**
 * A new membership with the link's role. An outstanding emailed invite of the same address in
 * that tenant is consumed by it (the person has joined), taking the link's role.
 */
async function joinThroughLink(
  tx: Executor,
  invite: Extract<Invite, { kind: 'link' }>,
  user: PublicUser,
  now: Date,
): Promise<Role> {
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
    .returning({ role: members.role });
  if (pending) return pending.role;
  await assertPlanAllows(tx, invite.tenantId, 'members');
  await tx.insert(members).values({
    id: newId(),
    tenantId: invite.tenantId,
    userId: user.id,
    email: user.email,
    role: invite.role,
    invitedBy: invite.createdBy,
  });
  return invite.role;
}
