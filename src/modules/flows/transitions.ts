import { transitionTable } from '../../platform/state-machine.js';
import type { FlowStatus } from './store.js';

/**
 * The flow lifecycle (spec "States and transitions / Flow", DECISIONS §6) as one table.
 *
 * - `publish` runs from DRAFT only; a SCHEDULED flow is already on its way (the scheduler
 *   publishes it at `scheduledAt`), so publishing it again is a 409 like any other state.
 * - `archive` and `delete` run from any state (archiving an archived flow is a no-op).
 * - `restore` brings an ARCHIVED flow back as a DRAFT.
 * - `set-status-<S>` is a PATCH carrying `status: S`: restoring by update (ARCHIVED → DRAFT or
 *   PUBLISHED), or resending the status the flow already has (a no-op, so a client may PATCH
 *   back the record it read). Every other status change by PATCH is refused.
 * - `publishDue` and `expire` are the scheduler's (DECISIONS §6): a SCHEDULED flow is published
 *   at `scheduledAt`; a PUBLISHED or SCHEDULED one is archived at `expiresAt`.
 */
export const FLOW_ACTIONS = [
  'publish',
  'archive',
  'delete',
  'restore',
  'set-status-DRAFT',
  'set-status-PUBLISHED',
  'set-status-SCHEDULED',
  'set-status-ARCHIVED',
  'publishDue',
  'expire',
] as const;
export type FlowAction = (typeof FLOW_ACTIONS)[number];

export const flowLifecycle = transitionTable<FlowStatus, FlowAction>({
  publish: { from: ['DRAFT'], to: 'PUBLISHED' },
  archive: { from: 'any', to: 'ARCHIVED' },
  delete: { from: 'any', to: 'ARCHIVED' },
  restore: { from: ['ARCHIVED'], to: 'DRAFT' },
  'set-status-DRAFT': { from: ['ARCHIVED', 'DRAFT'], to: 'DRAFT' },
  'set-status-PUBLISHED': { from: ['ARCHIVED', 'PUBLISHED'], to: 'PUBLISHED' },
  'set-status-SCHEDULED': { from: ['SCHEDULED'], to: 'SCHEDULED' },
  'set-status-ARCHIVED': { from: ['ARCHIVED'], to: 'ARCHIVED' },
  publishDue: { from: ['SCHEDULED'], to: 'PUBLISHED' },
  expire: { from: ['PUBLISHED', 'SCHEDULED'], to: 'ARCHIVED' },
});

/** The audit action of a move to `to` (there is no FLOW_RESTORED: back to DRAFT is an update). */
export const FLOW_AUDIT_ACTION: Record<FlowStatus, string> = {
  PUBLISHED: 'FLOW_PUBLISHED',
  SCHEDULED: 'FLOW_PUBLISHED',
  ARCHIVED: 'FLOW_ARCHIVED',
  DRAFT: 'FLOW_UPDATED',
};

/**
 * The one place a flow's next status is decided: the table, then the scheduling rule of
 * DECISIONS §6 (publishing a draft whose `scheduledAt` is still ahead schedules it instead).
 * Throws 409 INVALID_STATE_TRANSITION `{ from, action }` for anything the table refuses.
 */
export function nextFlowStatus(
  flow: { status: FlowStatus; scheduledAt: Date | null },
  action: FlowAction,
  now: Date,
): FlowStatus {
  const to = flowLifecycle.apply(flow.status, action);
  if (action === 'publish' && flow.scheduledAt && flow.scheduledAt.getTime() > now.getTime()) {
    return 'SCHEDULED';
  }
  return to;
}
