import type { ServiceCtx } from '../../platform/context.js';
import type { ListAuditLogsQuery } from './schemas.js';
import { listAuditEntriesPage } from './store.js';

/**
 * The tenant's audit trail, newest first. Read-only by design: entries are written by the
 * services in the transaction of the change they record, and nothing updates or deletes them.
 * `action` is one action or several separated by commas.
 */
export async function listAuditLogs(ctx: ServiceCtx, query: ListAuditLogsQuery) {
  const actions = query.action
    ?.split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  return listAuditEntriesPage(
    ctx.db,
    ctx.tenantId,
    {
      actions,
      entityType: query.entityType,
      entityId: query.entityId,
      actorId: query.actorId,
      from: query.startDate?.at,
      until: query.endDate?.until,
    },
    query,
  );
}
