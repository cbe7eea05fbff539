import { and, eq, inArray, isNotNull, isNull, lte, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { auditLogs, type FlowStatus, flows } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';

/**
 * The time-driven moves of DECISIONS §6, for the background scheduler. Each is one conditional
 * UPDATE: when several instances run it at once, PostgreSQL re-checks the WHERE of a row another
 * transaction just changed, so each flow moves (and is audited) exactly once. The audit rows are
 * written in the same transaction (actorId null, `{ automatic: true }`).
 */
async function moveFlows(
  exec: Executor,
  now: Date,
  where: SQL,
  to: FlowStatus,
  action: 'FLOW_PUBLISHED' | 'FLOW_ARCHIVED',
): Promise<number> {
  return exec.transaction(async (tx) => {
    const set: Partial<typeof flows.$inferInsert> = { status: to, updatedAt: now };
    if (to === 'PUBLISHED') set.publishedAt = now;
    if (to === 'ARCHIVED') set.archivedAt = now;
    const changed = await tx
      .update(flows)
      .set(set)
      .where(where)
      .returning({ id: flows.id, tenantId: flows.tenantId });
    if (changed.length === 0) return 0;
    await tx.insert(auditLogs).values(
      changed.map((f) => ({
        id: newId(),
        tenantId: f.tenantId,
        action,
        entityType: 'flow',
        entityId: f.id,
        actorId: null,
        ipAddress: null,
        metadata: { automatic: true },
      })),
    );
    return changed.length;
  });
}

/**
 * SCHEDULED flows whose `scheduledAt` has come (or was cleared) → PUBLISHED. Returns how many
 * moved. Run `archiveExpiredFlows` first so a flow past both dates is archived, not published.
 */
export const publishDueFlows = (exec: Executor, now: Date): Promise<number> =>
  moveFlows(
    exec,
    now,
    and(eq(flows.status, 'SCHEDULED'), or(isNull(flows.scheduledAt), lte(flows.scheduledAt, now)))!,
    'PUBLISHED',
    'FLOW_PUBLISHED',
  );

/** PUBLISHED or SCHEDULED flows whose `expiresAt` has passed → ARCHIVED. Returns how many moved. */
export const archiveExpiredFlows = (exec: Executor, now: Date): Promise<number> =>
  moveFlows(
    exec,
    now,
    and(
      inArray(flows.status, ['PUBLISHED', 'SCHEDULED']),
      isNotNull(flows.expiresAt),
      lte(flows.expiresAt, now),
    )!,
    'ARCHIVED',
    'FLOW_ARCHIVED',
  );
