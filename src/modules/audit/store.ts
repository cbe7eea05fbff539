import { and, count, desc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { auditLogs } from '../../db/schema/index.js';
import { listPage, type PageRequest } from '../../platform/pagination.js';

// The audit module reads the trail; the services write it, each in the transaction of the
// change it records (platform/audit.ts).

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

export interface AuditFilter {
  /** Any of these actions. */
  actions?: string[] | undefined;
  entityType?: string | undefined;
  entityId?: string | undefined;
  actorId?: string | undefined;
  /** Entries created at or after. */
  from?: Date | undefined;
  /** Entries created before. */
  until?: Date | undefined;
}

/** The tenant's entries matching `filter`, newest first. */
export async function listAuditEntriesPage(
  exec: Executor,
  tenantId: string,
  filter: AuditFilter,
  page: PageRequest,
) {
  const where = and(
    eq(auditLogs.tenantId, tenantId),
    filter.actions ? inArray(auditLogs.action, filter.actions) : undefined,
    filter.entityType ? eq(auditLogs.entityType, filter.entityType) : undefined,
    filter.entityId ? eq(auditLogs.entityId, filter.entityId) : undefined,
    filter.actorId ? eq(auditLogs.actorId, filter.actorId) : undefined,
    filter.from ? gte(auditLogs.createdAt, filter.from) : undefined,
    filter.until ? lt(auditLogs.createdAt, filter.until) : undefined,
  );
  return listPage(
    exec
      .select(entryColumns)
      .from(auditLogs)
      .where(where)
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id)),
    exec.select({ n: count() }).from(auditLogs).where(where),
    page,
  );
}
