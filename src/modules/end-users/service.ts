import type { ServiceCtx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import type { ListEndUsersQuery } from './schemas.js';
import { findEndUser, listEndUsersPage, listItemStatesOf } from './store.js';

/** The tenant's end users, last seen first (docs/end-users.md). */
export const listEndUsers = (ctx: ServiceCtx, query: ListEndUsersQuery) =>
  listEndUsersPage(ctx.db, ctx.tenantId, { search: query.search || undefined }, query);

/**
 * One end user, by service id or userId (as GET /api/end-users/:id/delivery finds it), with the
 * item states the frequency cap reads. Another tenant's is not found.
 */
export async function getEndUser(ctx: ServiceCtx, idOrUserId: string) {
  const user = await findEndUser(ctx.db, ctx.tenantId, idOrUserId);
  if (!user) throw notFound('End user');
  const states = await listItemStatesOf(ctx.db, ctx.tenantId, user.id);
  return {
    ...user,
    itemStates: states.map((s) => ({
      itemId: s.itemId,
      kind:
        s.flowName !== null
          ? ('flow' as const)
          : s.contentName !== null || s.npsName !== null
            ? ('content' as const)
            : null,
      contentType:
        s.flowName !== null
          ? null
          : s.contentName !== null
            ? s.contentType
            : s.npsName !== null
              ? 'nps-surveys'
              : null,
      name: s.flowName ?? s.contentName ?? s.npsName,
      completedAt: s.completedAt,
      dismissedAt: s.dismissedAt,
    })),
  };
}
