import { matchesRules, type RuleContext } from '../../../engine/rules.js';
import { matchUrl, type UrlRule } from '../../../engine/url-match.js';
import type { GoalConfig, NodeOf, Reentry } from './schemas.js';

/**
 * What the journey engine reads of an analytics event: the fields of a stored SDK event
 * (the event pipeline's `StoredEvent` has them all), so stored events go in as they are.
 */
export interface JourneyEvent {
  type: string;
  name?: string;
  url?: string;
  properties?: Record<string, unknown>;
}

/** A session start is recorded as SDK_INIT with `properties.source = "session"`. */
export function isSessionStart(event: JourneyEvent): boolean {
  return event.type === 'SDK_INIT' && event.properties?.source === 'session';
}

/**
 * The page an event was on: `url`, or `properties.path` for a PAGE_VIEW sent without one.
 * Undefined when it has neither.
 */
export function pageOf(event: JourneyEvent): string | undefined {
  if (typeof event.url === 'string') return event.url;
  const path = event.properties?.path;
  return typeof path === 'string' ? path : undefined;
}

/** A page visit: a PAGE_VIEW or a session start whose page matches the rule. */
function isPageVisit(event: JourneyEvent, rule: UrlRule): boolean {
  if (event.type !== 'PAGE_VIEW' && !isSessionStart(event)) return false;
  const page = pageOf(event);
  return page !== undefined && matchUrl(page, rule);
}

/**
 * Whether an event answers to an event name of WAIT_FOR_EVENT or an `event` goal: a CUSTOM event
 * with that `name`, or a built-in event whose `type` is the name (`FLOW_COMPLETED`, `PAGE_VIEW`).
 */
export function eventMatchesName(eventName: string, event: JourneyEvent): boolean {
  return event.type === 'CUSTOM' ? event.name === eventName : event.type === eventName;
}

/**
 * Whether `event` fires the TRIGGER (DECISIONS §6). The audience and anonymity checks are the
 * caller's, who knows the user. MANUAL triggers only through the enrollments route.
 */
export function triggerMatches(trigger: NodeOf<'TRIGGER'>, event: JourneyEvent): boolean {
  const { config } = trigger;
  switch (config.triggerType) {
    case 'CUSTOM_EVENT':
      return event.type === 'CUSTOM' && event.name === config.triggerConfig.eventName;
    case 'URL_MATCH':
      return isPageVisit(event, config.triggerConfig);
    case 'ELEMENT_CLICK':
      return event.type === 'CLICK' && event.properties?.selector === config.triggerConfig.selector;
    case 'MANUAL':
      return false;
    default:
      return false;
  }
}

/** What a goal is checked against: an event the user just sent, and/or the user's current traits. */
export interface GoalInput {
  event?: JourneyEvent;
  /** The user's rule context (traits, role, device) for attribute_match goals. */
  context?: RuleContext;
}

/**
 * Whether the goal is met by `input`:
 * - `event` `{ eventName }`: an event matching the name (see `eventMatchesName`);
 * - `page_visit` `{ matchType?, pattern }`: a PAGE_VIEW or session start on a matching page;
 * - `flow_completed` `{ flowId }`: a FLOW_COMPLETED whose `properties.flowId` is the flow;
 * - `attribute_match` `{ ruleTree }`: the rule tree holds on `input.context` (audience rules).
 */
export function goalMet(goal: GoalConfig, input: GoalInput): boolean {
  switch (goal.type) {
    case 'event':
      return input.event !== undefined && eventMatchesName(goal.config.eventName, input.event);
    case 'page_visit':
      return input.event !== undefined && isPageVisit(input.event, goal.config);
    case 'flow_completed': {
      const e = input.event;
      return e !== undefined && e.type === 'FLOW_COMPLETED' && e.properties?.flowId === goal.config.flowId;
    }
    case 'attribute_match':
      return input.context !== undefined && matchesRules(goal.config.ruleTree, input.context);
    default:
      return false;
  }
}

/** A user's earlier enrollment in the journey, as far as re-entry cares. */
export interface PreviousEnrollment {
  status: string;
  enrolledAt: number;
  /** When it ended; null while in progress (or unknown: then `enrolledAt` stands in). */
  endedAt: number | null;
}

export type EnrollRefusal = 'in_progress' | 'already_enrolled' | 'cooldown';

/**
 * Why a user may not enroll now, or null when they may. Nobody is enrolled twice at once; then
 * `never` allows a first enrollment only, `after_exit` another once the last has ended, and
 * `{ cooldownMs }` another once the last ended at least `cooldownMs` before `nowMs`.
 */
export function enrollRefusal(
  reentry: Reentry,
  previous: readonly PreviousEnrollment[],
  nowMs: number,
): EnrollRefusal | null {
  if (previous.some((p) => p.status === 'in_progress')) return 'in_progress';
  if (previous.length === 0) return null;
  if (reentry === 'never') return 'already_enrolled';
  if (reentry === 'after_exit') return null;
  const lastEnded = previous.reduce((last, p) => Math.max(last, p.endedAt ?? p.enrolledAt), -Infinity);
  return nowMs - lastEnded >= reentry.cooldownMs ? null : 'cooldown';
}

export function mayEnroll(reentry: Reentry, previous: readonly PreviousEnrollment[], nowMs: number): boolean {
  return enrollRefusal(reentry, previous, nowMs) === null;
}
