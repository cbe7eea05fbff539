import type { ModuleManifest } from '../../deps.js';
import { journeyRoutes } from './routes.js';
import { journeyDelivery } from './runtime/delivery-contributor.js';
import { journeyEventsEffect } from './runtime/events.js';
import { moveEnrollments } from './runtime/merge.js';
import { journeyArchiveSweepJob } from './runtime/sweep.js';
import { journeyTimersJob } from './runtime/timers.js';
import { findJourneysUsingAudience, pauseJourneysUsingFlow } from './service.js';

/**
 * Journeys: the canvas API (`/api/journeys`) and the durable enrollment engine — the event
 * effect (triggers, WAIT_FOR_EVENT, content reports, goals), the session's delivery contributor
 * (due CONTENT nodes, audience-only enrollment) and the timer job (WAIT, timeouts, deadlines).
 * See docs/journeys.md.
 */
export const journeysModule: ModuleManifest = {
  name: 'journeys',
  routes: journeyRoutes,
  tags: [{ name: 'journeys', description: 'Lifecycle journeys: canvas, enrollments, analytics' }],
  effects: [journeyEventsEffect],
  jobs: [journeyTimersJob, journeyArchiveSweepJob],
  delivery: [journeyDelivery],
  endUserMergers: [moveEnrollments],
  referenceFinders: [
    {
      target: 'audience',
      name: 'journeys',
      find: findJourneysUsingAudience,
    },
  ],
  dependentDisablers: [{ target: 'flow', name: 'journeys', disable: pauseJourneysUsingFlow }],
};

// The surface other modules use.
export {
  goalConfigSchema,
  journeyNodeSchema,
  MAX_DEADLINE_DAYS,
  MAX_EVENT_NAME_LENGTH,
  MAX_LABEL_LENGTH,
  MAX_SELECTOR_LENGTH,
  MAX_SPLIT_BRANCHES,
  MAX_WAIT_MS,
  MIN_WAIT_MS,
} from './engine/schemas.js';
export type { PublishIssue } from './engine/validate.js';
export { validateForPublish } from './engine/validate.js';
export type { CatalogEntry } from './records.js';
export { contentCatalog } from './records.js';
export type { CreateJourneyInput } from './schemas.js';
export { createJourneyBody } from './schemas.js';
export { createJourneyInTx } from './service.js';
