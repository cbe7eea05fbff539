import type { Executor } from '../../db/client.js';
import { recordAudits } from '../../platform/audit.js';
import { sourceStates, stateColumns } from '../../platform/state-machine.js';
import { emitWebhookEvents } from '../webhooks/index.js';
import { takeFlowVersion } from './service.js';
import { FLOW_STATUSES, type FlowsDue, findFlow, moveDueFlows } from './store.js';
import { FLOW_AUDIT_ACTION, flowLifecycle } from './transitions.js';

/**
 * The time-driven moves of DECISIONS §6, for the background scheduler, which calls each inside
 * a transaction so a move and its audit rows commit together. Each is one conditional UPDATE
 * over the action's source states (from the lifecycle table), so when several instances run it
 * at once each flow moves (and is audited) exactly once. Audit rows: actorId null,
 * `{ automatic: true }`.
 */
async function moveFlows(
  exec: Executor,
  now: Date,
  action: 'publishDue' | 'expire',
  due: FlowsDue,
): Promise<number> {
  const from = sourceStates(flowLifecycle, action, FLOW_STATUSES);
  const to = flowLifecycle.apply(from[0]!, action);
  const changed = await moveDueFlows(exec, from, due, stateColumns(from, to, now), now);
  // A flow going live takes its version (published by nobody: the scheduler).
  const versions = new Map<string, number>();
  if (to === 'PUBLISHED') {
    for (const f of changed) {
      const row = await findFlow(exec, f.tenantId, f.id);
      if (row) versions.set(f.id, (await takeFlowVersion(exec, { actorId: null, now }, row)).version);
    }
  }
  await recordAudits(
    exec,
    changed.map((f) => ({
      tenantId: f.tenantId,
      action: FLOW_AUDIT_ACTION[to],
      entityType: 'flow',
      entityId: f.id,
      metadata: { automatic: true, ...(versions.has(f.id) ? { version: versions.get(f.id) } : {}) },
    })),
  );
  if (to === 'PUBLISHED') {
    await emitWebhookEvents(
      exec,
      changed.map((f) => ({
        tenantId: f.tenantId,
        type: 'flow.published' as const,
        data: {
          flowId: f.id,
          name: f.name,
          publishedAt: now.toISOString(),
          publishedBy: null,
          scheduled: true,
        },
      })),
      { now },
    );
  }
  return changed.length;
}

/**
 * SCHEDULED flows whose `scheduledAt` has come (or was cleared) → PUBLISHED. Returns how many
 * moved. Run `archiveExpiredFlows` first so a flow past both dates is archived, not published.
 */
export const publishDueFlows = (exec: Executor, now: Date): Promise<number> =>
  moveFlows(exec, now, 'publishDue', 'scheduledAtReached');

/** PUBLISHED or SCHEDULED flows whose `expiresAt` has passed → ARCHIVED. Returns how many moved. */
export const archiveExpiredFlows = (exec: Executor, now: Date): Promise<number> =>
  moveFlows(exec, now, 'expire', 'expired');
