import { and, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { auditLogs } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import { pageOffset } from '../../platform/pagination.js';
import { endExclusive, type ListAuditLogsQuery, parseDateBound } from './schemas.js';

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
    where.push(actions.length === 1 ? eq(auditLogs.action, actions[0]!) : inArray(auditLogs.action, actions));
  }
  if (query.entityType) where.push(eq(auditLogs.entityType, query.entityType));
  if (query.entityId) where.push(eq(auditLogs.entityId, query.entityId));
  if (query.actorId) where.push(eq(auditLogs.actorId, query.actorId));
  const start = query.startDate ? parseDateBound(query.startDate) : null;
  const end = query.endDate ? parseDateBound(query.endDate) : null;
  if (start) where.push(gte(auditLogs.createdAt, start.at));
  if (end) where.push(lt(auditLogs.createdAt, endExclusive(end)));

  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(entryColumns)
      .from(auditLogs)
      .where(and(...where))
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db
      .select({ n: count() })
      .from(auditLogs)
      .where(and(...where)),
  ]);
  return { rows, total: total?.n ?? 0 };
}
