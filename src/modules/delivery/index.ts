import type { ModuleManifest } from '../../deps.js';

/**
 * What `POST /api/sdk/session` serves, as a seam: the contract of delivery contributors
 * (contract.ts), the cached per-tenant snapshot they fill (cache.ts), the session's one lookup
 * statement (lookup.ts: batching; store.ts: the statement, composed of the contributors' typed
 * fragments) and helpers to build items (items.ts). The choice itself is pure:
 * `engine/choose-session.ts`. The module contributes nothing itself; flows, content, experiments and
 * journeys contribute to it.
 */
export const deliveryModule: ModuleManifest = { name: 'delivery' };

export type { DeliveryCache, LocaleView, SessionCandidates, Snapshot } from './cache.js';
// The surface other modules use.
export { createDeliveryCache } from './cache.js';
export type { DeliveryContributor, DeliveryItem, RememberEntry, UserStateQuery } from './contract.js';
export type {
  ContributorChoice,
  ContributorChooser,
  ExperimentAssignment,
  JourneyDue,
  SessionFacts,
} from './engine/choose-session.js';
export { audienceMatcher, candidatesOf, chooseSession } from './engine/choose-session.js';
export { contentUrlCondition, encodeRecord, flowUrlRule, servableOf, TRANSLATION_TYPES } from './items.js';
export type { SessionLookup, SessionLookupFn } from './lookup.js';
export { createSessionLookup } from './lookup.js';
