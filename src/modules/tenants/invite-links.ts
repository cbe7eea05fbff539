import { and, count, desc, eq, gt, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { inviteLinks, ROLES, type Role } from '../../db/schema/index.js';
import { ROLE_RANK } from '../../platform/auth/guard.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { listPage, type PageRequest } from '../../platform/pagination.js';
import { assertOwnerFor } from './roles.js';

/** What an invite link looks like outside the service: never the token or its hash. */
const inviteLinkColumns = {
  id: inviteLinks.id,
  role: inviteLinks.role,
  createdBy: inviteLinks.createdBy,
  expiresAt: inviteLinks.expiresAt,
  createdAt: inviteLinks.createdAt,
};

const linkNotFound = () => notFound('Invite link');

/** A link is usable while it is neither revoked nor expired at the request's time. */
const usable = (ctx: ServiceCtx): SQL =>
  and(
    eq(inviteLinks.tenantId, ctx.tenantId),
    isNull(inviteLinks.revokedAt),
    gt(inviteLinks.expiresAt, ctx.now),
  )!;

/** GET /api/tenants/invites/links: the tenant's usable links, newest first. */
export async function listInviteLinks(ctx: ServiceCtx, query: PageRequest) {
  const where = usable(ctx);
  return listPage(
    ctx.db
      .select(inviteLinkColumns)
      .from(inviteLinks)
      .where(where)
      .orderBy(desc(inviteLinks.createdAt), desc(inviteLinks.id)),
    ctx.db.select({ n: count() }).from(inviteLinks).where(where),
    query,
  );
}

/**
 * DELETE /api/tenants/invites/links/:id: the link stops working at once. Acceptance checks only
 * the token and `expiresAt`, so the expiry moves to now as well as `revokedAt` being set. An
 * unknown, other-tenant, malformed, expired or already revoked link answers 404; an OWNER link
 * needs the OWNER role (as creating one does).
 */
export async function revokeInviteLink(ctx: ServiceCtx, actorRole: Role, id: string): Promise<void> {
  if (!isUuid(id)) throw linkNotFound();
  await ctx.db.transaction(async (tx) => {
    const [link] = await tx
      .select(inviteLinkColumns)
      .from(inviteLinks)
      .where(and(usable(ctx), eq(inviteLinks.id, id)))
      .for('update');
    if (!link) throw linkNotFound();
    assertOwnerFor(actorRole, link.role, 'revoke an OWNER invite link');
    await tx
      .update(inviteLinks)
      .set({ expiresAt: ctx.now, revokedAt: ctx.now })
      .where(and(eq(inviteLinks.tenantId, ctx.tenantId), eq(inviteLinks.id, id)));
    await audit(ctx, tx, {
      action: 'INVITE_LINK_REVOKED',
      entityType: 'invite_link',
      entityId: id,
      metadata: {
        role: link.role,
        createdBy: link.createdBy,
        expiresAt: link.expiresAt.toISOString(),
      },
    });
  });
}

/**
 * Revokes the usable links `userId` created in the tenant: all of them, or with `above` only
 * those granting a role ranked above it. Runs inside the caller's transaction (member removal or
 * demotion) and returns how many links it revoked, for that action's audit entry.
 */
export async function revokeLinksCreatedBy(
  ctx: ServiceCtx,
  tx: Executor,
  userId: string | null,
  above?: Role,
): Promise<number> {
  if (!userId) return 0;
  const where: SQL[] = [usable(ctx), eq(inviteLinks.createdBy, userId)];
  if (above) {
    const higher = ROLES.filter((r) => ROLE_RANK[r] > ROLE_RANK[above]);
    if (higher.length === 0) return 0;
    where.push(inArray(inviteLinks.role, higher));
  }
  const revoked = await tx
    .update(inviteLinks)
    .set({ expiresAt: ctx.now, revokedAt: ctx.now })
    .where(and(...where))
    .returning({ id: inviteLinks.id });
  return revoked.length;
}
