import type { Config } from '../../config.js';
import type { AppDeps } from '../../deps.js';
import type { MemoKey } from './effect.js';
import { EventHandoff } from './handoff.js';

/** The size of a typical SDK batch, assumed until batches have been seen. */
export const ASSUMED_EVENTS_PER_BATCH = 50;

/**
 * What the events module keeps per app (`deps.state.events`, made with the deps by the
 * manifest): what the request path tells processing, and what processing carries from run to run.
 */
export interface EventsState {
  /**
   * Committed batches handed from the writer to processing in memory (handoff.ts); null where
   * this process does not process events (`ROLE=web`: the workers elsewhere read the log).
   */
  readonly handoff: EventHandoff | null;
  /** When this process last committed SDK work (ms since the epoch): processing yields while it is recent. */
  hotPathActiveAt: number;
  /** The effects' state kept from chunk to chunk (`EffectContext.memo`). */
  readonly memos: Map<MemoKey<unknown>, unknown>;
  /** The processing job's batch-size estimate, chunk size and last scan of the log, from run to run. */
  readonly job: { eventsPerBatch: number; targetEvents?: number; scannedAt: number };
}

export function createEventsState(config: Config): EventsState {
  return {
    handoff: config.role === 'web' ? null : new EventHandoff(),
    hotPathActiveAt: 0,
    memos: new Map(),
    job: { eventsPerBatch: ASSUMED_EVENTS_PER_BATCH, scannedAt: 0 },
  };
}

/** The events module's state in this app. */
export function eventsState(deps: AppDeps): EventsState {
  const state = deps.state.events;
  if (!state) throw new Error('this app does not list the events module (modules/index.ts)');
  return state;
}

declare module '../../deps.js' {
  interface ModuleStates {
    /** The events module's per-app state. */
    events: EventsState;
  }
}
