import { and, count, desc, eq, gt, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { inviteLinks, ROLES, type Role } from '../../db/schema/index.js';
import { ROLE_RANK } from '../../platform/auth/guard.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { type PageRequest, pageOffset } from '../../platform/pagination.js';

/** What an invite link looks like outside the service: never the token or its hash. */
export const inviteLinkColumns = {
  id: inviteLinks.id,
  role: inviteLinks.role,
  createdBy: inviteLinks.createdBy,
  expiresAt: inviteLinks.expiresAt,
  createdAt: inviteLinks.createdAt,
};

const linkNotFound = () => notFound('Invite link');

/** A link is usable while it is neither revoked nor expired at `now` (the app's clock). */
const usable = (tenantId: string, now: Date): SQL =>
  and(eq(inviteLinks.tenantId, tenantId), isNull(inviteLinks.revokedAt), gt(inviteLinks.expiresAt, now))!;

/** GET /api/tenants/invites/links: the tenant's usable links, newest first. */
export async function listInviteLinks(ctx: ServiceCtx, query: PageRequest, now: Date) {
  const where = usable(ctx.tenantId, now);
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(inviteLinkColumns)
      .from(inviteLinks)
      .where(where)
      .orderBy(desc(inviteLinks.createdAt), desc(inviteLinks.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db.select({ n: count() }).from(inviteLinks).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/**
 * DELETE /api/tenants/invites/links/:id: the link stops working at once. Acceptance checks only
 * the token and `expiresAt`, so the expiry moves to now as well as `revokedAt` being set. An
 * unknown, other-tenant, malformed, expired or already revoked link answers 404; an OWNER link
 * needs the OWNER role (as creating one does).
 */
export async function revokeInviteLink(
  ctx: ServiceCtx,
  actorRole: Role,
  id: string,
  now: Date,
): Promise<void> {
  if (!isUuid(id)) throw linkNotFound();
  await ctx.db.transaction(async (tx) => {
    const [link] = await tx
      .select(inviteLinkColumns)
      .from(inviteLinks)
      .where(and(usable(ctx.tenantId, now), eq(inviteLinks.id, id)))
      .for('update');
    if (!link) throw linkNotFound();
    if (link.role === 'OWNER' && actorRole !== 'OWNER') {
      throw new AppError('INSUFFICIENT_ROLE', 'Only an OWNER can revoke an OWNER invite link');
    }
    await tx
      .update(inviteLinks)
      .set({ expiresAt: now, revokedAt: now })
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
  tx: Executor,
  tenantId: string,
  userId: string | null,
  now: Date,
  above?: Role,
): Promise<number> {
  if (!userId) return 0;
  const where: SQL[] = [usable(tenantId, now), eq(inviteLinks.createdBy, userId)];
  if (above) {
    const higher = ROLES.filter((r) => ROLE_RANK[r] > ROLE_RANK[above]);
    if (higher.length === 0) return 0;
    where.push(inArray(inviteLinks.role, higher));
  }
  const revoked = await tx
    .update(inviteLinks)
    .set({ expiresAt: now, revokedAt: now })
    .where(and(...where))
    .returning({ id: inviteLinks.id });
  return revoked.length;
}
