import type { Executor } from '../db/client.js';
import { auditLogs } from '../db/schema/index.js';
import { newId } from './ids.js';

export interface AuditEntry {
  tenantId: string;
  action: string;
  entityType: string;
  entityId?: string | null;
  actorId?: string | null;
  ipAddress?: string | null;
  metadata?: Record<string, unknown>;
}

/** Call inside the transaction of the change it records, so both commit or neither does. */
export async function recordAudit(exec: Executor, entry: AuditEntry): Promise<void> {
  await exec.insert(auditLogs).values({
    id: newId(),
    tenantId: entry.tenantId,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId ?? null,
    actorId: entry.actorId ?? null,
    ipAddress: entry.ipAddress ?? null,
    metadata: entry.metadata ?? {},
  });
}
