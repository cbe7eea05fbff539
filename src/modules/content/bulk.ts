import type { Executor } from '../../db/client.js';
import { recordAudits } from '../../platform/audit.js';
import type { Referrer } from '../../platform/references.js';
import { sourceStates, stateColumns } from '../../platform/state-machine.js';
import { CONTENT_TYPE_LIST } from './definitions.js';
import { contentLifecycle, transitionAudit } from './lifecycle.js';
import { takeContentVersion } from './service.js';
import { type ContentItemsToMove, findContentItem, moveContentItems } from './store/content-items.js';
import { CONTENT_STATUSES } from './store/records.js';

type BulkAction = 'publishDue' | 'expire' | 'unpublish';

/** The types the scheduler publishes at scheduledAt. */
const SCHEDULED_TYPES = CONTENT_TYPE_LIST.filter((def) => def.scheduled).map((def) => def.slug);

/**
 * One conditional UPDATE over every item in a source state of `action` that `which` names,
 * with one audit row per changed item, on the caller's executor (the scheduler's transaction,
 * or the flow deletion's); concurrent runs (several instances) change each row once.
 */
async function bulkTransition(
  exec: Executor,
  action: BulkAction,
  which: ContentItemsToMove,
  now: Date,
  auditMetadata: Record<string, unknown>,
) {
  const from = sourceStates(contentLifecycle, action, CONTENT_STATUSES);
  const to = contentLifecycle.apply(from[0]!, action);
  const rows = await moveContentItems(exec, from, stateColumns(from, to, now), which);
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
    { kind: 'scheduledAtReached', now, types: SCHEDULED_TYPES },
    now,
    { automatic: true },
  );
  // Going live takes a version (published by nobody: the scheduler).
  for (const r of rows) {
    const row = await findContentItem(exec, r.tenantId, r.id);
    if (row) await takeContentVersion(exec, { actorId: null, now }, row);
  }
  return rows.length;
}

/** PUBLISHED or SCHEDULED items whose expiresAt has passed → ARCHIVED. Returns how many changed. */
export async function archiveExpiredContent(exec: Executor, now: Date): Promise<number> {
  const rows = await bulkTransition(exec, 'expire', { kind: 'expired', now }, now, { automatic: true });
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
  const rows = await bulkTransition(
    exec,
    'unpublish',
    { kind: 'taskListsLaunchingFlow', tenantId, flowId },
    now,
    { reason: 'flow-deleted', flowId },
  );
  return rows.map((r) => ({ type: 'task-list', id: r.id, name: r.name }));
}
