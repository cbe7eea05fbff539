import type { ServiceCtx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import type { ListEndUsersQuery } from './schemas.js';
import { findEndUser, listEndUsersPage, listItemStatesOf } from './store.js';

/** The tenant's end users, last seen first (docs/end-users.md). */
export const listEndUsers = (ctx: ServiceCtx, query: ListEndUsersQuery) =>
  listEndUsersPage(ctx.db, ctx.tenantId, { search: query.search || undefined }, query);

type ItemStateRow = Awaited<ReturnType<typeof listItemStatesOf>>[number];

/** The item a state is about: a flow, a content item or an NPS survey, or none once deleted. */
function itemOf(s: ItemStateRow) {
  if (s.flowName !== null) return { kind: 'flow' as const, contentType: null, name: s.flowName };
  if (s.contentName !== null)
    return { kind: 'content' as const, contentType: s.contentType, name: s.contentName };
  if (s.npsName !== null) return { kind: 'content' as const, contentType: 'nps-surveys', name: s.npsName };
  return { kind: null, contentType: null, name: null };
}

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
      ...itemOf(s),
      completedAt: s.completedAt,
      dismissedAt: s.dismissedAt,
    })),
  };
}
