import type { ModuleManifest } from '../../deps.js';
import { eventProcessorJob } from './processor.js';
import { eventRetentionJob } from './retention.js';
import { eventsPlugin } from './routes.js';
import { createEventsState } from './state.js';

/**
 * The event pipeline, in one place: `POST /api/sdk/events` (routes.ts) validates (schema.ts) and
 * stores the body durably through group commit (writer.ts; recorder.ts for the events the
 * service records itself) → the processing job (processor.ts) claims stored batches, decodes
 * them (decode.ts), drops replayed client ids, and runs every module's effects (effect.ts, the
 * contract) in one transaction per chunk. The effects live in their modules' manifests.
 * retention.ts drops events older than each tenant's plan allows (docs/retention.md).
 */
export const eventsModule: ModuleManifest = {
  name: 'events',
  routes: eventsPlugin,
  jobs: [eventProcessorJob, eventRetentionJob],
  state: { events: createEventsState },
};

// The surface other modules use.
export { EARLIEST_EVENT_DAY } from './decode.js';
export type { EffectContext, EventEffect, MemoKey, ProcessedBatch } from './effect.js';
export { type EventOwner, eraseEventsOf, exportEventsOf } from './erase.js';
export { idIn } from './properties.js';
export type { EventRecorder } from './recorder.js';
export { serverEvent } from './recorder.js';
export type { StoredEvent } from './types.js';
