import { transitionTable } from '../../platform/state-machine.js';
import type { JourneyStatus } from './store/journeys.js';

/**
 * The journey lifecycle (spec "States and transitions / Journey", DECISIONS §6) as one table:
 * publish from DRAFT or PAUSED (resume), unpublish and pause from PUBLISHED, archive (DELETE)
 * from any state (archiving an archived journey is a no-op), restore from ARCHIVED.
 */
export const JOURNEY_ACTIONS = ['publish', 'unpublish', 'pause', 'archive', 'restore'] as const;
export type JourneyAction = (typeof JOURNEY_ACTIONS)[number];

export const journeyLifecycle = transitionTable<JourneyStatus, JourneyAction>({
  publish: { from: ['DRAFT', 'PAUSED'], to: 'PUBLISHED' },
  unpublish: { from: ['PUBLISHED'], to: 'DRAFT' },
  pause: { from: ['PUBLISHED'], to: 'PAUSED' },
  archive: { from: 'any', to: 'ARCHIVED' },
  restore: { from: ['ARCHIVED'], to: 'DRAFT' },
});

/** The audit action of a move to `to` (back to DRAFT is an update). */
export const JOURNEY_AUDIT_ACTION: Record<JourneyStatus, string> = {
  PUBLISHED: 'JOURNEY_PUBLISHED',
  PAUSED: 'JOURNEY_PAUSED',
  ARCHIVED: 'JOURNEY_ARCHIVED',
  DRAFT: 'JOURNEY_UPDATED',
};
