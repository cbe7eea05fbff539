import type { Transaction } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Role } from '../../platform/auth/guard.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { issueSecret } from '../../platform/crypto.js';
import { AppError, notFound } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { Mailer, MailStatus } from '../../platform/mail.js';
import { assertPlanAllows } from '../pricing/index.js';
import { memberLifecycle, memberState } from './member-state.js';
import { assertOwnerFor } from './roles.js';
import { insertInviteLink } from './store/invite-links.js';
import {
  findMember,
  insertMember,
  type MemberRecord,
  memberEmailExists,
  setInviteEmailStatus,
  updateMember,
} from './store/members.js';
import { findTenantName } from './store/tenants.js';

/** Emailed invites and invite links stay valid for 7 days. */
export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;
/** Spec: "Resending an invite is allowed at most 2 times per invite." */
const MAX_INVITE_RESENDS = 2;

/** What invites need beyond the request context. */
export interface InviteEnv {
  mailer: Mailer;
  appUrl: string;
  log: { warn(obj: object, msg: string): void };
}

/** `{APP_URL}/invite/<token>`: the only place an invite token travels (DECISIONS §3). */
const inviteUrl = (appUrl: string, token: string) => `${appUrl}/invite/${token}`;

/** A fresh invite token: the clear value goes in the mail or link, only its sha256 is stored. */
const issueToken = (ctx: ServiceCtx) => issueSecret(ctx.now.getTime(), INVITE_TTL_MS);

/**
 * POST /api/tenants/members: a pending member with a fresh invite token. The mail goes out
 * after the commit (a slow or failing SMTP server never holds a transaction or loses the
 * member); its outcome is then stored in `inviteEmailStatus`.
 */
export async function inviteMember(
  ctx: ServiceCtx,
  env: InviteEnv,
  actorRole: Role,
  input: { email: string; role: Role },
): Promise<MemberRecord> {
  assertOwnerFor(actorRole, input.role, 'invite an OWNER');
  const invite = issueToken(ctx);
  const { member, tenantName } = await ctx.db.transaction(async (tx) => {
    if (await memberEmailExists(tx, ctx.tenantId, input.email)) throw memberExists(input.email);
    await assertPlanAllows(tx, ctx.tenantId, 'members', ctx.now);
    let row: MemberRecord;
    try {
      row = await insertMember(tx, {
        id: newId(),
        tenantId: ctx.tenantId,
        email: input.email,
        role: input.role,
        invitedBy: ctx.actorId,
        isPending: true,
        inviteTokenHash: invite.hash,
        inviteExpiresAt: invite.expiresAt,
      });
    } catch (err) {
      if (isUniqueViolation(err, 'members_tenant_email_key')) throw memberExists(input.email);
      throw err;
    }
    await audit(ctx, tx, {
      action: 'MEMBER_INVITED',
      entityType: 'member',
      entityId: row.id,
      metadata: {
        email: row.email,
        role: row.role,
        via: 'email',
        expiresAt: invite.expiresAt.toISOString(),
      },
    });
    return { member: row, tenantName: await tenantNameOf(tx, ctx.tenantId) };
  });
  return deliverInvite(ctx, env, member, tenantName, invite);
}

/**
 * POST /api/tenants/members/:id/resend-invite: a new token (the old one stops working) and a
 * new expiry, mailed again; at most MAX_INVITE_RESENDS times per invite.
 */
export async function resendInvite(ctx: ServiceCtx, env: InviteEnv, id: string): Promise<MemberRecord> {
  if (!isUuid(id)) throw notFound('Member');
  const invite = issueToken(ctx);
  const { member, tenantName } = await ctx.db.transaction(async (tx) => {
    const current = await findMember(tx, ctx.tenantId, id, { lock: true });
    if (!current) throw notFound('Member');
    memberLifecycle.apply(memberState(current), 'resend-invite');
    if (current.inviteResendCount >= MAX_INVITE_RESENDS) {
      throw new AppError(
        'RESEND_LIMIT_REACHED',
        `An invite can be resent at most ${MAX_INVITE_RESENDS} times; remove the member and invite again`,
        { limit: MAX_INVITE_RESENDS, resendCount: current.inviteResendCount },
      );
    }
    const row = await updateMember(tx, ctx.tenantId, id, {
      inviteTokenHash: invite.hash,
      inviteExpiresAt: invite.expiresAt,
      inviteResendCount: current.inviteResendCount + 1,
      inviteEmailStatus: null,
      updatedAt: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'MEMBER_INVITED',
      entityType: 'member',
      entityId: id,
      metadata: {
        email: row!.email,
        role: row!.role,
        via: 'resend',
        resendCount: row!.inviteResendCount,
        expiresAt: invite.expiresAt.toISOString(),
      },
    });
    return { member: row!, tenantName: await tenantNameOf(tx, ctx.tenantId) };
  });
  return deliverInvite(ctx, env, member, tenantName, invite);
}

/**
 * POST /api/tenants/invites/link: a shareable link; whoever accepts it joins with `role`. Its `id`
 * is returned so that it can be revoked (DELETE /api/tenants/invites/links/:id).
 */
export async function createInviteLink(ctx: ServiceCtx, env: InviteEnv, actorRole: Role, role: Role) {
  assertOwnerFor(actorRole, role, 'invite an OWNER');
  const invite = issueToken(ctx);
  const id = newId();
  await ctx.db.transaction(async (tx) => {
    await insertInviteLink(tx, {
      id,
      tenantId: ctx.tenantId,
      role,
      tokenHash: invite.hash,
      createdBy: ctx.actorId,
      expiresAt: invite.expiresAt,
    });
    await audit(ctx, tx, {
      action: 'MEMBER_INVITED',
      entityType: 'invite_link',
      entityId: id,
      metadata: { role, via: 'link', expiresAt: invite.expiresAt.toISOString() },
    });
  });
  return { id, link: inviteUrl(env.appUrl, invite.token), role, expiresAt: invite.expiresAt };
}

const memberExists = (email: string) =>
  new AppError('MEMBER_EXISTS', 'This email is already a member or has a pending invite', { email });

const tenantNameOf = async (tx: Transaction, tenantId: string) =>
  (await findTenantName(tx, tenantId)) ?? 'your team';

async function deliverInvite(
  ctx: ServiceCtx,
  env: InviteEnv,
  member: MemberRecord,
  tenantName: string,
  invite: { token: string; hash: string; expiresAt: Date },
): Promise<MemberRecord> {
  const link = inviteUrl(env.appUrl, invite.token);
  let status: MailStatus;
  try {
    status = await env.mailer.send({
      tenantId: ctx.tenantId,
      to: member.email,
      subject: `You're invited to join ${tenantName}`,
      text: [
        `You have been invited to join ${tenantName} as ${member.role}.`,
        '',
        `Accept the invitation: ${link}`,
        '',
        `This link expires on ${invite.expiresAt.toISOString()}. If you did not expect it, ignore this mail.`,
      ].join('\n'),
      secrets: [invite.token],
    });
  } catch (err) {
    env.log.warn({ err: (err as Error).message, memberId: member.id }, 'invite mail could not be recorded');
    status = 'FAILED';
  }
  // Only if this invite is still the current one: a concurrent resend or acceptance wins.
  const row = await setInviteEmailStatus(ctx.db, ctx.tenantId, member.id, invite.hash, status);
  return row ?? { ...member, inviteEmailStatus: status };
}
