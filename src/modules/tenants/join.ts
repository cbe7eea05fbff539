import type { Executor } from '../../db/client.js';
import type { Role } from '../../platform/auth/guard.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertPlanAllows } from '../pricing/index.js';
import { creatorMayGrant } from './roles.js';
import { findInviteLinkByToken } from './store/invite-links.js';
import {
  acceptPendingInvite,
  findPendingInviteByToken,
  insertMember,
  lockAcceptedRole,
} from './store/members.js';
import type { TenantRef } from './store/tenants.js';

/**
 * What an invite token opens (both kinds are stored as sha256): an emailed invite (a pending
 * member row, single use) or an invite link (`invite_links`, usable by several people until it
 * expires), each with its tenant.
 */
export type Invite =
  | { kind: 'member'; memberId: string; tenant: TenantRef; email: string }
  | { kind: 'link'; linkId: string; tenant: TenantRef; role: Role; createdBy: string };

/** The invite `tokenHash` names, if it can still be accepted at `now`. */
export async function findInvite(exec: Executor, tokenHash: string, now: Date): Promise<Invite | null> {
  const member = await findPendingInviteByToken(exec, tokenHash);
  if (member) {
    if (member.expiresAt && member.expiresAt.getTime() <= now.getTime()) return null;
    return { kind: 'member', memberId: member.id, tenant: member.tenant, email: member.email };
  }
  const link = await findInviteLinkByToken(exec, tokenHash);
  if (!link || link.expiresAt.getTime() <= now.getTime() || !link.createdBy) return null;
  if (!creatorMayGrant(link.creatorRole, link.role)) return null;
  return { kind: 'link', linkId: link.id, tenant: link.tenant, role: link.role, createdBy: link.createdBy };
}

export interface Joined {
  memberId: string;
  role: Role;
}

/**
 * Makes `user` a member through `invite`, inside the caller's transaction (which records
 * MEMBER_JOINED). An emailed invite is single use: the conditional UPDATE claims the token, so
 * a concurrent second accept finds nothing. A link makes a new membership with its role; an
 * outstanding emailed invite of the same address in that tenant is consumed by it (the person
 * has joined), taking the link's role. The creator's right to grant that role is checked again
 * with the creator's row locked (FOR SHARE), so a concurrent removal or demotion waits for the
 * join or makes it fail.
 */
export async function joinByInvite(
  tx: Executor,
  invite: Invite,
  tokenHash: string,
  user: { id: string; email: string },
  now: Date,
): Promise<Joined> {
  const tenantId = invite.tenant.id;
  if (invite.kind === 'member') {
    const joined = await acceptPendingInvite(tx, tenantId, { id: invite.memberId, tokenHash }, user.id, now);
    if (!joined) throw new AppError('INVALID_INVITE_TOKEN');
    return joined;
  }
  const creatorRole = await lockAcceptedRole(tx, tenantId, invite.createdBy);
  if (!creatorMayGrant(creatorRole ?? null, invite.role)) throw new AppError('INVALID_INVITE_TOKEN');
  const pending = await acceptPendingInvite(tx, tenantId, { email: user.email }, user.id, now, {
    role: invite.role,
  });
  if (pending) return pending;
  await assertPlanAllows(tx, tenantId, 'members', now);
  const member = await insertMember(tx, {
    id: newId(),
    tenantId,
    userId: user.id,
    email: user.email,
    role: invite.role,
    invitedBy: invite.createdBy,
  });
  return { memberId: member.id, role: invite.role };
}
