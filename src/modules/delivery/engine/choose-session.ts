import { matchesRules, type RuleContext, type RuleNode } from '../../../engine/rules.js';
import { matchUrl, type UrlRule } from '../../../engine/url-match.js';

/**
 * What one session is served, decided without I/O from a tenant's delivery snapshot (loaded
 * and cached elsewhere) and the session's end user: the flows and content items due on this url
 * for this user now, plus what each delivery contributor (experiments, journeys) adds, holds
 * back or brings in.
 */

/** A flow, content item or NPS survey as the choice sees it. */
export interface Servable {
  id: string;
  audienceId: string | null;
  /** Milliseconds; null: never expires. */
  expiresAt: number | null;
  /** Substrings the session url must contain (content `targetUrl`, `triggerConfig.url`). */
  contains: string[];
  /** A URL_MATCH flow trigger or a `url_match` content trigger. */
  rule: UrlRule | null;
  /** Whether any url condition exists (then a session without url does not get the item). */
  urlBound: boolean;
  /** Served only when a contributor brings it in (journey content that is not published on its own). */
  onDemand: boolean;
}

/** The frequency cap (tenant setting `settings.frequency`). */
export interface FrequencySettings {
  /** Offer an item again after the end user completed it. */
  repeatCompleted: boolean;
  /** Offer an item again after the end user dismissed or skipped it. */
  repeatDismissed: boolean;
}

/** The items an end user completed or dismissed (null for a session without an end user). */
export interface ItemStates {
  completed: ReadonlySet<string>;
  dismissed: ReadonlySet<string>;
}

export interface ItemFilter {
  frequency: FrequencySettings;
  user: ItemStates | null;
  url: string | undefined;
  nowMs: number;
  /** Whether the session's user is in an audience (memoized by the caller). */
  inAudience(audienceId: string): boolean;
}

function urlAllows(item: Servable, url: string | undefined): boolean {
  if (!item.urlBound) return true;
  if (url === undefined) return false;
  for (const part of item.contains) if (!url.includes(part)) return false;
  return item.rule === null || matchUrl(url, item.rule);
}

/** Not expired, not capped: what changes with the time and the end user's item states. */
function allowedNow(item: Servable, f: ItemFilter): boolean {
  if (item.expiresAt !== null && item.expiresAt <= f.nowMs) return false;
  if (f.user) {
    if (!f.frequency.repeatCompleted && f.user.completed.has(item.id)) return false;
    if (!f.frequency.repeatDismissed && f.user.dismissed.has(item.id)) return false;
  }
  return true;
}

/** On a matching url, in its audience: the same for every session of one url and rule context. */
function allowedHere(item: Servable, url: string | undefined, inAudience: (id: string) => boolean): boolean {
  if (!urlAllows(item, url)) return false;
  return item.audienceId === null || inAudience(item.audienceId);
}

/** Whether an item may be served now: not expired, not capped, on a matching url, in its audience. */
export function itemAllowed(item: Servable, f: ItemFilter): boolean {
  return allowedNow(item, f) && allowedHere(item, f.url, f.inAudience);
}

/**
 * The items a session may get before time, frequency caps and contributors are applied: not on
 * demand, on a matching url, in their audience (indexes, in order). They depend only on the items,
 * the url and the audience results, so sessions of one url and rule context can share them.
 */
export interface Candidates {
  flows: number[];
  content: number[];
}

export function candidatesOf(
  items: { flows: readonly Servable[]; content: readonly Servable[] },
  url: string | undefined,
  inAudience: (audienceId: string) => boolean,
): Candidates {
  const of = (list: readonly Servable[]) => {
    const out: number[] = [];
    for (let i = 0; i < list.length; i++) {
      const item = list[i]!;
      if (!item.onDemand && allowedHere(item, url, inAudience)) out.push(i);
    }
    return out;
  };
  return { flows: of(items.flows), content: of(items.content) };
}

/**
 * An audience matcher over the snapshot's rule trees, remembering its answers in `memo`. An
 * audience that no longer exists matches nobody (fail closed).
 */
export function audienceMatcher(
  audiences: ReadonlyMap<string, RuleNode>,
  rules: RuleContext,
  memo: Map<string, boolean>,
): (audienceId: string) => boolean {
  return (audienceId) => {
    let ok = memo.get(audienceId);
    if (ok === undefined) {
      const tree = audiences.get(audienceId);
      ok = tree !== undefined && matchesRules(tree, rules);
      memo.set(audienceId, ok);
    }
    return ok;
  };
}

export interface ExperimentAssignment {
  experimentId: string;
  variantId: string;
  flowId: string | null;
}

export interface JourneyDue {
  journeyId: string;
  enrollmentId: string;
  nodeId: string;
  /** The visit of the node (a loop may come back to it): reports may echo it as `properties.visit`. */
  visit: number;
  contentType: string;
  contentId: string;
}

/** What one contributor decides for one session. */
export interface ContributorChoice {
  experiments?: ExperimentAssignment[];
  journeys?: JourneyDue[];
  /** Item ids not to serve in this session (the experiment variants the user is not assigned to). */
  withhold?: string[];
  /** Item ids to serve in this session even if on demand (journey content due now). */
  include?: string[];
  /**
   * What this session decided for the first time and must be stored before it answers (an
   * experiment assignment at first exposure, a new journey enrollment); stored by the
   * contributor's `remember`, which answers with the choice as stored.
   */
  remember?: unknown[];
}

/** The session as contributors see it. */
export interface SessionFacts {
  tenantId: string;
  sessionId: string;
  /** Null for a session with neither userId nor anonymousId. */
  endUserId: string | null;
  userId: string | null;
  anonymousId: string | null;
  url: string | undefined;
  locale: string | undefined;
  rules: RuleContext;
  nowMs: number;
  inAudience(audienceId: string): boolean;
}

/** A contributor's pure choice, bound to its part of the snapshot and this user's state. */
export type ContributorChooser = (facts: SessionFacts) => ContributorChoice;

export interface SessionChoice {
  /** Indexes into the snapshot's flows and content, in priority order. */
  flows: number[];
  content: number[];
  experiments: ExperimentAssignment[];
  journeys: JourneyDue[];
}

function chooseList(
  items: readonly Servable[],
  filter: ItemFilter,
  withheld: ReadonlySet<string>,
  included: ReadonlySet<string>,
  candidates: number[] | undefined,
): number[] {
  // Nothing brought in on demand: the choice is the candidates still allowed now.
  if (candidates && included.size === 0) {
    const chosen: number[] = [];
    for (const i of candidates) {
      const item = items[i]!;
      if (!withheld.has(item.id) && allowedNow(item, filter)) chosen.push(i);
    }
    return chosen.length === candidates.length ? candidates : chosen;
  }
  const chosen: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (withheld.has(item.id)) continue;
    if (included.has(item.id) || (!item.onDemand && itemAllowed(item, filter))) chosen.push(i);
  }
  return chosen;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The session's choice from what every contributor decided (on the same facts, and as stored
 * when a decision had to be remembered): the items allowed by the filter, less what a contributor
 * withholds, plus what one includes. `candidates`, when given, must be `candidatesOf` the same
 * items, url and audience results; a list of the choice may then be that of the candidates
 * itself (read only).
 */
export function chooseSession(
  items: { flows: readonly Servable[]; content: readonly Servable[] },
  filter: ItemFilter,
  choices: readonly ContributorChoice[],
  candidates?: Candidates,
): SessionChoice {
  const experiments: ExperimentAssignment[] = [];
  const journeys: JourneyDue[] = [];
  let withheld = NONE;
  let included = NONE;
  for (const choice of choices) {
    if (choice.experiments) experiments.push(...choice.experiments);
    if (choice.journeys) journeys.push(...choice.journeys);
    if (choice.withhold?.length) withheld = new Set([...withheld, ...choice.withhold]);
    if (choice.include?.length) included = new Set([...included, ...choice.include]);
  }
  return {
    flows: chooseList(items.flows, filter, withheld, included, candidates?.flows),
    content: chooseList(items.content, filter, withheld, included, candidates?.content),
    experiments,
    journeys,
  };
}
