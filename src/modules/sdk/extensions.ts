import type { Executor } from '../../db/client.js';
import type { AppDeps } from '../../deps.js';
import type { RuleContext } from '../../engine/rules.js';

/**
 * Extension points of SDK delivery for the modules that come later (experiments, journeys), so
 * they plug in without touching the session code. Registration is idempotent by name; call it
 * at import or in the module's routes plugin.
 */

export interface ExperimentAssignment {
  experimentId: string;
  variantId: string;
  flowId: string | null;
}

export interface JourneyDue {
  journeyId: string;
  enrollmentId: string;
  nodeId: string;
  contentType: string;
  contentId: string;
}

/** What an extension may add to `POST /api/sdk/session`. */
export interface SessionAdditions {
  experiments?: ExperimentAssignment[];
  journeys?: JourneyDue[];
  /** Flow or content ids not to serve in this session (e.g. the variants the user is not assigned to). */
  withhold?: string[];
}

export interface DeliveryContext {
  deps: AppDeps;
  tenantId: string;
  sessionId: string;
  /** Null for a session with neither userId nor anonymousId. */
  endUserId: string | null;
  userId: string | null;
  anonymousId: string | null;
  url: string | undefined;
  locale: string | undefined;
  /** The audience-rule context of this user (traits, role, device). */
  rules: RuleContext;
  now: Date;
  /** Ids of the flows and content items this session serves (already filtered). */
  servedFlowIds: readonly string[];
  servedContentIds: readonly string[];
}

/** Runs for every session after flows and content are chosen; results are concatenated in registration order. */
export type DeliveryExtension = (ctx: DeliveryContext) => Promise<SessionAdditions>;

const deliveryExtensions = new Map<string, DeliveryExtension>();

export function registerDeliveryExtension(name: string, extension: DeliveryExtension): void {
  deliveryExtensions.set(name, extension);
}

export const listDeliveryExtensions = (): DeliveryExtension[] => [...deliveryExtensions.values()];

/**
 * When identify merges an anonymous end user into an identified one, every table that points at
 * end users moves its rows from `fromId` to `toId` (inside the merge transaction) before the
 * anonymous row is deleted. The SDK module moves its own item states and survey/NPS responses.
 */
export type EndUserMerger = (
  tx: Executor,
  merge: { tenantId: string; fromId: string; toId: string },
) => Promise<void>;

const endUserMergers = new Map<string, EndUserMerger>();

export function registerEndUserMerger(name: string, merger: EndUserMerger): void {
  endUserMergers.set(name, merger);
}

export const listEndUserMergers = (): EndUserMerger[] => [...endUserMergers.values()];
