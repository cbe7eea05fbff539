import { deliverPasswordResets } from '../modules/auth/password-reset.js';
import { EVENT_PROCESSOR } from '../modules/sdk/events-routes.js';
import { eventEffects } from './event-effects.js';
import { ASSUMED_EVENTS_PER_BATCH, processPendingEvents } from './event-processor.js';
import type { Worker } from './runner.js';
import { schedulerWorker } from './scheduler.js';

/** Ingestion counts as busy this long after its last commit. */
const INGESTION_QUIET_MS = 250;

/** The event processor's batch-size estimate, carried from run to run. */
const processingSizing = { eventsPerBatch: ASSUMED_EVENTS_PER_BATCH };

/**
 * Every background job of the service. `npm start` runs them in-process unless ROLE=web;
 * jobs coordinate across instances through the database, so any number may run them.
 */

export const workers: Worker[] = [
  {
    name: 'api-key-last-used',
    intervalMs: 5_000,
    runOnStop: true,
    run: (deps) => deps.apiKeys.flushLastUsed(),
  },
  {
    // Woken after every commit of the event writer; the interval picks up other instances' batches.
    name: EVENT_PROCESSOR,
    intervalMs: 1_000,
    run: async (deps) => {
      // Chunks of ~2,500 events (~400 embedded, where PGlite runs one statement at a time on
      // this thread and ingestion's INSERTs wait behind a processing transaction); while
      // ingestion is busy in this process, processing takes at most half of it.
      await processPendingEvents(deps, eventEffects, {
        maxBatches: 500,
        targetEvents: deps.database.kind === 'pglite' ? 400 : 2_500,
        ingestionBusy: () => Date.now() - deps.hotPathActiveAt < INGESTION_QUIET_MS,
        sizing: processingSizing,
      });
    },
  },
  schedulerWorker,
  {
    // Not woken by the request route: the work of a reset is not tied to the moment it was asked for.
    name: 'password-resets',
    intervalMs: 2_000,
    run: async (deps) => {
      await deliverPasswordResets(deps);
    },
  },
];
