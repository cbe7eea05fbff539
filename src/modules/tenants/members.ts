import type { Transaction } from '../../db/client.js';
import type { Role } from '../../platform/auth/guard.js';
import { revokeSessions } from '../../platform/auth/sessions.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { revokeLinksCreatedBy } from './invite-links.js';
import { assertOwnerFor } from './roles.js';
import type { ListMembersQuery } from './schemas.js';
import {
  deleteMember,
  findMember,
  listMembersPage,
  lockOwners,
  type MemberRecord,
  updateMember,
} from './store/members.js';

const memberNotFound = () => notFound('Member');

export async function listMembers(ctx: ServiceCtx, query: ListMembersQuery) {
  return listMembersPage(ctx.db, ctx.tenantId, query, query);
}

export async function getMember(ctx: ServiceCtx, id: string): Promise<MemberRecord> {
  if (!isUuid(id)) throw memberNotFound();
  const row = await findMember(ctx.db, ctx.tenantId, id);
  if (!row) throw memberNotFound();
  return row;
}

/**
 * Last-owner protection must hold under concurrency: every role change and removal first
 * locks the tenant's active OWNER rows (in id order, so two writers never deadlock), then
 * reads its target. A concurrent demotion of the other owner is thus seen before counting.
 */
async function lockOwnersAndTarget(tx: Transaction, tenantId: string, id: string) {
  const owners = await lockOwners(tx, tenantId);
  const target = await findMember(tx, tenantId, id, { lock: true });
  if (!target) throw memberNotFound();
  const isLastOwner = target.role === 'OWNER' && !target.isPending && !owners.some((o) => o !== target.id);
  return { target, isLastOwner };
}

const lastOwner = () =>
  new AppError('LAST_OWNER', 'The last owner cannot be removed or demoted; make another member OWNER first');

/**
 * PATCH /api/tenants/members/:id (OWNER only, checked by the route policy). A demotion revokes
 * the member's usable invite links that grant a role above the new one.
 */
export async function changeMemberRole(ctx: ServiceCtx, id: string, role: Role): Promise<MemberRecord> {
  if (!isUuid(id)) throw memberNotFound();
  return ctx.db.transaction(async (tx) => {
    const { target, isLastOwner } = await lockOwnersAndTarget(tx, ctx.tenantId, id);
    if (target.role === role) return target;
    if (isLastOwner) throw lastOwner();
    const row = await updateMember(tx, ctx.tenantId, id, { role, updatedAt: ctx.now });
    const revokedInviteLinks = await revokeLinksCreatedBy(ctx, tx, target.userId, role);
    await audit(ctx, tx, {
      action: 'MEMBER_ROLE_CHANGED',
      entityType: 'member',
      entityId: id,
      metadata: {
        from: target.role,
        to: role,
        email: target.email,
        userId: target.userId,
        revokedInviteLinks,
      },
    });
    return row!;
  });
}

/**
 * DELETE /api/tenants/members/:id: removes the membership (or withdraws a pending invite) and
 * revokes the user's sessions in this tenant, so their tokens answer 401 at once, and every
 * usable invite link they created.
 */
export async function removeMember(ctx: ServiceCtx, actorRole: Role, id: string): Promise<void> {
  if (!isUuid(id)) throw memberNotFound();
  await ctx.db.transaction(async (tx) => {
    const { target, isLastOwner } = await lockOwnersAndTarget(tx, ctx.tenantId, id);
    assertOwnerFor(actorRole, target.role, 'remove an OWNER');
    if (isLastOwner) throw lastOwner();
    await deleteMember(tx, ctx.tenantId, id);
    if (target.userId) {
      await revokeSessions(tx, { tenantId: ctx.tenantId, userId: target.userId }, 'member_removed', ctx.now);
    }
    const revokedInviteLinks = await revokeLinksCreatedBy(ctx, tx, target.userId);
    await audit(ctx, tx, {
      action: 'MEMBER_REMOVED',
      entityType: 'member',
      entityId: id,
      metadata: {
        email: target.email,
        role: target.role,
        userId: target.userId,
        wasPending: target.isPending,
        revokedInviteLinks,
      },
    });
  });
}
