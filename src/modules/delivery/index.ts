import type { ModuleManifest } from '../../deps.js';
import { deliveryExposuresEffect } from './exposures-effect.js';
import { deliveryPolicyRoutes } from './policy-routes.js';
import { moveServes } from './store.js';

/**
 * What `POST /api/sdk/session` serves, as a seam: the contract of delivery contributors
 * (contract.ts), the cached per-tenant snapshot they fill (cache.ts), the session's one lookup
 * statement (lookup.ts: batching; store.ts: the statement, composed of the contributors' typed
 * fragments) and helpers to build items (items.ts). The choice itself is pure:
 * `engine/choose-session.ts`, with the tenant's delivery policy (`engine/policy.ts`: priority,
 * caps, cooldown; its API in policy-routes.ts, the serve ledger in ledger.ts). Flows, content,
 * experiments and journeys contribute to it.
 */
export const deliveryModule: ModuleManifest = {
  name: 'delivery',
  routes: deliveryPolicyRoutes,
  tags: [{ name: 'delivery', description: 'What users see: the delivery policy (priority, caps, cooldown)' }],
  effects: [deliveryExposuresEffect],
  endUserMergers: [moveServes],
};

export type { DeliveryCache, LocaleView, SessionCandidates, Snapshot } from './cache.js';
// The surface other modules use.
export { createDeliveryCache } from './cache.js';
export type { DeliveryContributor, DeliveryItem, RememberEntry, UserStateQuery } from './contract.js';
export type {
  ContributorChoice,
  ContributorChooser,
  ExperimentAssignment,
  ItemDecision,
  JourneyDue,
  ReasonCode,
  SessionChoice,
  SessionFacts,
  SessionPolicy,
} from './engine/choose-session.js';
export {
  audienceMatcher,
  candidatesOf,
  chooseSession,
  firstFailingRule,
  REASON_CODES,
} from './engine/choose-session.js';
export type { DeliveryPolicy, PolicyHistory } from './engine/policy.js';
export { EMPTY_HISTORY } from './engine/policy.js';
export { contentUrlCondition, encodeRecord, flowUrlRule, servableOf, TRANSLATION_TYPES } from './items.js';
export type { ServeLedger } from './ledger.js';
export { createServeLedger } from './ledger.js';
export type { SessionLookup, SessionLookupFn } from './lookup.js';
export { createSessionLookup } from './lookup.js';
