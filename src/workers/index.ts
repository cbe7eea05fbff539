import { EVENT_PROCESSOR } from '../modules/sdk/events-routes.js';
import { eventEffects } from './event-effects.js';
import { processPendingEvents } from './event-processor.js';
import type { Worker } from './runner.js';
import { schedulerWorker } from './scheduler.js';

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
      // Embedded: PGlite runs one statement at a time on this thread, so small chunks keep
      // ingestion's INSERTs from waiting behind a long processing transaction, and processing
      // yields as long as it works.
      const embedded = deps.database.kind === 'pglite';
      await processPendingEvents(deps, eventEffects, embedded ? 8 : 50, embedded);
    },
  },
  schedulerWorker,
];
