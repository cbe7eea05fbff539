import { and, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { auditLogs } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import { listPage } from '../../platform/pagination.js';
import type { ListAuditLogsQuery } from './schemas.js';

const entryColumns = {
  id: auditLogs.id,
  tenantId: auditLogs.tenantId,
  action: auditLogs.action,
  entityType: auditLogs.entityType,
  entityId: auditLogs.entityId,
  actorId: auditLogs.actorId,
  ipAddress: auditLogs.ipAddress,
  metadata: auditLogs.metadata,
  createdAt: auditLogs.createdAt,
};

/**
 * The tenant's audit trail, newest first. Read-only by design: entries are written by the
 * services in the transaction of the change they record, and nothing updates or deletes them.
 */
export async function listAuditLogs(ctx: ServiceCtx, query: ListAuditLogsQuery) {
  const where: SQL[] = [eq(auditLogs.tenantId, ctx.tenantId)];
  if (query.action) {
    const actions = query.action
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    where.push(inArray(auditLogs.action, actions));
  }
  if (query.entityType) where.push(eq(auditLogs.entityType, query.entityType));
  if (query.entityId) where.push(eq(auditLogs.entityId, query.entityId));
  if (query.actorId) where.push(eq(auditLogs.actorId, query.actorId));
  if (query.startDate) where.push(gte(auditLogs.createdAt, query.startDate.at));
  if (query.endDate) where.push(lt(auditLogs.createdAt, query.endDate.until));

  return listPage(
    ctx.db
      .select(entryColumns)
      .from(auditLogs)
      .where(and(...where))
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id)),
    ctx.db
      .select({ n: count() })
      .from(auditLogs)
      .where(and(...where)),
    query,
  );
}
