import { transitionTable } from '../../platform/state-machine.js';
import type { ExperimentStatus } from './store.js';

/**
 * The experiment lifecycle (spec "States and transitions / Experiment", DECISIONS §6) as one table.
 *
 * - `update` (PATCH) only in draft: a running or finished experiment's variants and audience are
 *   what its results were measured on.
 * - `start` from draft or stopped (a stopped experiment resumes; its assignments stand);
 *   `stop` from running.
 * - `delete` archives from any state (archiving an archived experiment is a no-op).
 * - `complete` is the background job's, once `endDate` has passed: from running, and from
 *   stopped (a paused experiment whose planned end has come is over too).
 */
export const EXPERIMENT_ACTIONS = ['update', 'start', 'stop', 'delete', 'complete'] as const;
export type ExperimentAction = (typeof EXPERIMENT_ACTIONS)[number];

export const experimentLifecycle = transitionTable<ExperimentStatus, ExperimentAction>({
  update: { from: ['draft'], to: 'draft' },
  start: { from: ['draft', 'stopped'], to: 'running' },
  stop: { from: ['running'], to: 'stopped' },
  delete: { from: 'any', to: 'archived' },
  complete: { from: ['running', 'stopped'], to: 'completed' },
});

/** The audit action of a move to `to`. */
export const EXPERIMENT_AUDIT_ACTION: Record<ExperimentStatus, string> = {
  draft: 'EXPERIMENT_UPDATED',
  running: 'EXPERIMENT_STARTED',
  stopped: 'EXPERIMENT_STOPPED',
  completed: 'EXPERIMENT_COMPLETED',
  archived: 'EXPERIMENT_ARCHIVED',
};
