import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { sqlRows } from '../../db/raw.js';
import { auditLogs, type ContentStatus, contentItems } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import type { Referrer } from '../../platform/references.js';
import { contentLifecycle, sourceStates, transitionAudit } from './lifecycle.js';

interface ChangedRow {
  id: string;
  tenant_id: string;
  type: string;
  name: string;
  from_status: ContentStatus;
}

type BulkAction = 'publishDue' | 'expire' | 'unpublish';

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

/**
 * One conditional UPDATE over every item in a source state of `action` that meets `condition`,
 * with one audit row per changed item, in one transaction. The rows are locked before they are
 * changed and the state condition is re-checked after a wait, so concurrent runs (several
 * instances) change each row once.
 */
async function bulkTransition(
  exec: Executor,
  action: BulkAction,
  condition: SQL,
  now: Date,
  auditMetadata: Record<string, unknown>,
): Promise<ChangedRow[]> {
  const from = sourceStates(action);
  const to = contentLifecycle.apply(from[0]!, action);
  const stamp = at(now);
  const extra =
    to === 'PUBLISHED'
      ? sql`, published_at = ${stamp}`
      : to === 'ARCHIVED'
        ? sql`, archived_at = ${stamp}`
        : sql``;
  return exec.transaction(async (tx) => {
    const rows = await sqlRows<ChangedRow>(
      tx,
      sql`
      with target as (
        select id, status from ${contentItems}
        where ${contentItems.status} in (${sql.join(
          from.map((s) => sql`${s}`),
          sql`, `,
        )}) and ${condition}
        for update
      )
      update content_items as c
      set status = ${to}, updated_at = ${stamp}${extra}
      from target
      where c.id = target.id
      returning c.id, c.tenant_id, c.type, c.name, target.status as from_status
    `,
    );
    if (rows.length > 0) {
      await tx.insert(auditLogs).values(
        rows.map((r) => {
          const entry = transitionAudit(r.from_status, to, action);
          return {
            id: newId(),
            tenantId: r.tenant_id,
            action: entry.action,
            entityType: r.type,
            entityId: r.id,
            actorId: null,
            ipAddress: null,
            metadata: { ...entry.metadata, ...auditMetadata },
          };
        }),
      );
    }
    return rows;
  });
}

/** SCHEDULED announcements whose scheduledAt has come → PUBLISHED. Returns how many changed. */
export async function publishDueAnnouncements(exec: Executor, now: Date): Promise<number> {
  const rows = await bulkTransition(
    exec,
    'publishDue',
    sql`${contentItems.type} = 'announcements' and ${contentItems.scheduledAt} <= ${at(now)}`,
    now,
    { automatic: true },
  );
  return rows.length;
}

/** PUBLISHED or SCHEDULED items whose expiresAt has passed → ARCHIVED. Returns how many changed. */
export async function archiveExpiredContent(exec: Executor, now: Date): Promise<number> {
  const rows = await bulkTransition(
    exec,
    'expire',
    sql`${contentItems.expiresAt} is not null and ${contentItems.expiresAt} <= ${at(now)}`,
    now,
    { automatic: true },
  );
  return rows.length;
}

/**
 * Dependent disabler for a deleted flow: the tenant's published or scheduled task lists with a
 * COMPLETE_FLOW item launching it go back to DRAFT.
 */
export async function unpublishTaskListsForFlow(
  exec: Executor,
  tenantId: string,
  flowId: string,
  now: Date,
): Promise<Referrer[]> {
  const needle = JSON.stringify([{ actionType: 'COMPLETE_FLOW', actionConfig: { flowId } }]);
  const rows = await bulkTransition(
    exec,
    'unpublish',
    sql`${contentItems.tenantId} = ${tenantId} and ${contentItems.type} = 'task-lists'
      and ${contentItems.body} -> 'items' @> ${needle}::jsonb`,
    now,
    { reason: 'flow-deleted', flowId },
  );
  return rows.map((r) => ({ type: 'task-list', id: r.id, name: r.name }));
}
