import { and, count, desc, eq, ilike, type SQL } from 'drizzle-orm';
import type { Transaction } from '../../db/client.js';
import { members, type Role, sessions } from '../../db/schema/index.js';
import { revokeSessions } from '../../platform/auth/sessions.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { containsPattern, listPage } from '../../platform/pagination.js';
import { revokeLinksCreatedBy } from './invite-links.js';
import { assertOwnerFor } from './roles.js';
import type { ListMembersQuery } from './schemas.js';

/** What a member looks like outside the service: never the invite token hash. */
export const memberColumns = {
  id: members.id,
  tenantId: members.tenantId,
  userId: members.userId,
  email: members.email,
  role: members.role,
  invitedBy: members.invitedBy,
  isPending: members.isPending,
  inviteEmailStatus: members.inviteEmailStatus,
  inviteResendCount: members.inviteResendCount,
  inviteExpiresAt: members.inviteExpiresAt,
  createdAt: members.createdAt,
  updatedAt: members.updatedAt,
};

export type MemberRecord = {
  [K in keyof typeof memberColumns]: (typeof members.$inferSelect)[K];
};

const memberNotFound = () => notFound('Member');

export async function listMembers(ctx: ServiceCtx, query: ListMembersQuery) {
  const where: SQL[] = [eq(members.tenantId, ctx.tenantId)];
  if (query.search) where.push(ilike(members.email, containsPattern(query.search)));
  if (query.role) where.push(eq(members.role, query.role));
  if (query.isPending !== undefined) where.push(eq(members.isPending, query.isPending));
  return listPage(
    ctx.db
      .select(memberColumns)
      .from(members)
      .where(and(...where))
      .orderBy(desc(members.createdAt), desc(members.id)),
    ctx.db
      .select({ n: count() })
      .from(members)
      .where(and(...where)),
    query,
  );
}

export async function getMember(ctx: ServiceCtx, id: string): Promise<MemberRecord> {
  if (!isUuid(id)) throw memberNotFound();
  const [row] = await ctx.db
    .select(memberColumns)
    .from(members)
    .where(and(eq(members.tenantId, ctx.tenantId), eq(members.id, id)))
    .limit(1);
  if (!row) throw memberNotFound();
  return row;
}

/**
 * Last-owner protection must hold under concurrency: every role change and removal first
 * locks the tenant's active OWNER rows (in id order, so two writers never deadlock), then
 * reads its target. A concurrent demotion of the other owner is thus seen before counting.
 */
async function lockOwnersAndTarget(tx: Transaction, tenantId: string, id: string) {
  const owners = await tx
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.role, 'OWNER'), eq(members.isPending, false)))
    .orderBy(members.id)
    .for('update');
  const [target] = await tx
    .select(memberColumns)
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.id, id)))
    .for('update');
  if (!target) throw memberNotFound();
  const isLastOwner = target.role === 'OWNER' && !target.isPending && !owners.some((o) => o.id !== target.id);
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
    const [row] = await tx
      .update(members)
      .set({ role, updatedAt: ctx.now })
      .where(and(eq(members.tenantId, ctx.tenantId), eq(members.id, id)))
      .returning(memberColumns);
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
    await tx.delete(members).where(and(eq(members.tenantId, ctx.tenantId), eq(members.id, id)));
    if (target.userId) {
      await revokeSessions(
        tx,
        and(eq(sessions.tenantId, ctx.tenantId), eq(sessions.userId, target.userId)),
        'member_removed',
        ctx.now,
      );
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
