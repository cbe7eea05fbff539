import type { Executor } from '../../db/client.js';
import type { Role } from '../../platform/auth/guard.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { assertOwnerFor, rolesBeyond } from './roles.js';
import { listUsableInviteLinksPage, lockUsableInviteLink, revokeInviteLinks } from './store/invite-links.js';

const linkNotFound = () => notFound('Invite link');

/** GET /api/tenants/invites/links: the tenant's usable links, newest first. */
export async function listInviteLinks(ctx: ServiceCtx, query: PageRequest) {
  return listUsableInviteLinksPage(ctx.db, ctx.tenantId, ctx.now, query);
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
    const link = await lockUsableInviteLink(tx, ctx.tenantId, id, ctx.now);
    if (!link) throw linkNotFound();
    assertOwnerFor(actorRole, link.role, 'revoke an OWNER invite link');
    await revokeInviteLinks(tx, ctx.tenantId, { id }, ctx.now);
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
  if (above === undefined) return revokeInviteLinks(tx, ctx.tenantId, { createdBy: userId }, ctx.now);
  const roles = rolesBeyond(above);
  if (roles.length === 0) return 0;
  return revokeInviteLinks(tx, ctx.tenantId, { createdBy: userId, roles }, ctx.now);
}
