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

const auditRow = (entry: AuditEntry) => ({
  id: newId(),
  tenantId: entry.tenantId,
  action: entry.action,
  entityType: entry.entityType,
  entityId: entry.entityId ?? null,
  actorId: entry.actorId ?? null,
  ipAddress: entry.ipAddress ?? null,
  metadata: entry.metadata ?? {},
});

/** Call inside the transaction of the change it records, so both commit or neither does. */
export async function recordAudit(exec: Executor, entry: AuditEntry): Promise<void> {
  await exec.insert(auditLogs).values(auditRow(entry));
}

/** Several entries in one insert (bulk changes such as the scheduler's); nothing when empty. */
export async function recordAudits(exec: Executor, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await exec.insert(auditLogs).values(entries.map(auditRow));
}
