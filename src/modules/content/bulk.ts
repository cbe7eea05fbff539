import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { CONTENT_STATUSES, type ContentStatus, contentItems } from '../../db/schema/index.js';
import { recordAudits } from '../../platform/audit.js';
import type { Referrer } from '../../platform/references.js';
import { sourceStates, stateColumns } from '../../platform/state-machine.js';
import { CONTENT_TYPE_LIST } from './definitions.js';
import { contentLifecycle, transitionAudit } from './lifecycle.js';

type BulkAction = 'publishDue' | 'expire' | 'unpublish';

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

/** The types the scheduler publishes at scheduledAt. */
const SCHEDULED_TYPES = CONTENT_TYPE_LIST.filter((def) => def.scheduled).map((def) => def.slug);

/**
 * One conditional UPDATE over every item in a source state of `action` that meets `condition`,
 * with one audit row per changed item, on the caller's executor (the scheduler's transaction,
 * or the flow deletion's). The rows are locked before they are changed and the state condition
 * is re-checked after a wait, so concurrent runs (several instances) change each row once.
 */
async function bulkTransition(
  exec: Executor,
  action: BulkAction,
  condition: SQL,
  now: Date,
  auditMetadata: Record<string, unknown>,
) {
  const from = sourceStates(contentLifecycle, action, CONTENT_STATUSES);
  const to = contentLifecycle.apply(from[0]!, action);
  const target = exec.$with('target').as(
    exec
      .select({
        id: contentItems.id,
        fromStatus: sql<ContentStatus>`${contentItems.status}`.as('from_status'),
      })
      .from(contentItems)
      .where(and(inArray(contentItems.status, from), condition))
      .for('update'),
  );
  const rows = await exec
    .with(target)
    .update(contentItems)
    .set(stateColumns(from, to, now))
    .from(target)
    .where(eq(contentItems.id, target.id))
    .returning({
      id: contentItems.id,
      tenantId: contentItems.tenantId,
      type: contentItems.type,
      name: contentItems.name,
      fromStatus: target.fromStatus,
    });
  await recordAudits(
    exec,
    rows.map((r) => {
      const entry = transitionAudit(r.fromStatus, to, action);
      return {
        tenantId: r.tenantId,
        action: entry.action,
        entityType: r.type,
        entityId: r.id,
        metadata: { ...entry.metadata, ...auditMetadata },
      };
    }),
  );
  return rows;
}

/** SCHEDULED items (of the scheduled types) whose scheduledAt has come → PUBLISHED. Returns how many changed. */
export async function publishDueAnnouncements(exec: Executor, now: Date): Promise<number> {
  const rows = await bulkTransition(
    exec,
    'publishDue',
    sql`${inArray(contentItems.type, SCHEDULED_TYPES)} and ${contentItems.scheduledAt} <= ${at(now)}`,
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
