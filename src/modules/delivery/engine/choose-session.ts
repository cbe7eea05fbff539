import { matchesRules, type RuleContext, type RuleNode } from '../../../engine/rules.js';
import { matchUrl, type UrlRule } from '../../../engine/url-match.js';
import { applyPolicy, type DeliveryPolicy, type PolicyHistory, type PolicyItem } from './policy.js';

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
  /** Delivery priority: higher first (default 0). */
  priority: number;
  /** Published (else created), ms: ties of priority go to the most recent. */
  publishedAt: number;
  /** Never held back by the delivery policy. */
  bypassCaps: boolean;
  /** Starts by itself (not a MANUAL flow, `manual` / `side_button` content or self-help). */
  autoStart: boolean;
  /** The policy's cap scopes it falls in (`all`, `flows` or its content type, maybe `modal-like`). */
  scopes: readonly string[];
}

/**
 * Why an item is not served (or null: served), one code of a documented list
 * (docs/delivery-policy.md). The session and the explanation get them from the same functions.
 */
export const REASON_CODES = [
  'NOT_PUBLISHED',
  'SCHEDULED',
  'EXPIRED',
  'URL_MISMATCH',
  'AUDIENCE_MISMATCH',
  'ALREADY_COMPLETED',
  'DISMISSED',
  'CAPPED',
  'COOLDOWN',
  'LOWER_PRIORITY',
  'EXPERIMENT_HOLDOUT',
  'JOURNEY_NOT_AT_STEP',
  'LOCALE_MISSING',
  'PLAN_LIMIT',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** One item's decision (explanations): `reason` null when served. */
export interface ItemDecision {
  kind: 'flow' | 'content';
  /** Index into the snapshot's `flows` or `content`. */
  index: number;
  id: string;
  reason: ReasonCode | null;
  detail: string | null;
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

/** Expired, completed or dismissed: what changes with the time and the end user's item states. */
function reasonNow(item: Servable, f: ItemFilter): ReasonCode | null {
  if (item.expiresAt !== null && item.expiresAt <= f.nowMs) return 'EXPIRED';
  if (f.user) {
    if (!f.frequency.repeatCompleted && f.user.completed.has(item.id)) return 'ALREADY_COMPLETED';
    if (!f.frequency.repeatDismissed && f.user.dismissed.has(item.id)) return 'DISMISSED';
  }
  return null;
}

const allowedNow = (item: Servable, f: ItemFilter): boolean => reasonNow(item, f) === null;

/** Off its url or out of its audience: the same for every session of one url and rule context. */
function reasonHere(
  item: Servable,
  url: string | undefined,
  inAudience: (id: string) => boolean,
): ReasonCode | null {
  if (!urlAllows(item, url)) return 'URL_MISMATCH';
  return item.audienceId === null || inAudience(item.audienceId) ? null : 'AUDIENCE_MISMATCH';
}

const allowedHere = (item: Servable, url: string | undefined, inAudience: (id: string) => boolean): boolean =>
  reasonHere(item, url, inAudience) === null;

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
   * Items this session serves at another priority than their own (journey content due at a
   * CONTENT node that sets one): the policy orders them by it. Two for one item: the highest.
   */
  priorities?: { id: string; priority: number }[];
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
  /** With a policy: the served items that count against it (what the serve ledger records). */
  counted?: { id: string; scopes: readonly string[] }[];
}

/** The tenant's delivery policy and what this user was served before (absent: no policy). */
export interface SessionPolicy {
  policy: DeliveryPolicy;
  history: PolicyHistory;
}

/**
 * Why `item` is not served, before the policy: withheld by an experiment, a journey item not
 * due, expired, completed, dismissed, off its url or out of its audience (null: eligible).
 */
function eligibility(
  item: Servable,
  filter: ItemFilter,
  withheld: ReadonlySet<string>,
  included: ReadonlySet<string>,
): ReasonCode | null {
  if (withheld.has(item.id)) return 'EXPERIMENT_HOLDOUT';
  if (included.has(item.id)) return null;
  if (item.onDemand) return 'JOURNEY_NOT_AT_STEP';
  return reasonNow(item, filter) ?? reasonHere(item, filter.url, filter.inAudience);
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
    if (eligibility(items[i]!, filter, withheld, included) === null) chosen.push(i);
  }
  return chosen;
}

/** Every item's eligibility (explanations): the same rule as `chooseList`, with its reason. */
function explainList(
  kind: 'flow' | 'content',
  items: readonly Servable[],
  filter: ItemFilter,
  withheld: ReadonlySet<string>,
  included: ReadonlySet<string>,
  out: ItemDecision[],
): number[] {
  const chosen: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const reason = eligibility(item, filter, withheld, included);
    out.push({ kind, index: i, id: item.id, reason, detail: null });
    if (reason === null) chosen.push(i);
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
  policy?: SessionPolicy,
  /** When given, every item's decision is pushed to it (the explanation; no shortcut taken). */
  explain?: ItemDecision[],
): SessionChoice {
  const experiments: ExperimentAssignment[] = [];
  const journeys: JourneyDue[] = [];
  let withheld = NONE;
  let included = NONE;
  let priorities: Map<string, number> | undefined;
  for (const choice of choices) {
    if (choice.experiments) experiments.push(...choice.experiments);
    if (choice.journeys) journeys.push(...choice.journeys);
    for (const p of choice.priorities ?? []) {
      priorities ??= new Map();
      priorities.set(p.id, Math.max(p.priority, priorities.get(p.id) ?? -Infinity));
    }
    if (choice.withhold?.length) withheld = new Set([...withheld, ...choice.withhold]);
    if (choice.include?.length) included = new Set([...included, ...choice.include]);
  }
  // With `afterDismissDays` the policy decides how long a dismissed item stays away.
  const eligibleFilter =
    policy && policy.policy.afterDismissDays !== null && !filter.frequency.repeatDismissed
      ? { ...filter, frequency: { ...filter.frequency, repeatDismissed: true } }
      : filter;
  const choice: SessionChoice = explain
    ? {
        flows: explainList('flow', items.flows, eligibleFilter, withheld, included, explain),
        content: explainList('content', items.content, eligibleFilter, withheld, included, explain),
        experiments,
        journeys,
      }
    : {
        flows: chooseList(items.flows, eligibleFilter, withheld, included, candidates?.flows),
        content: chooseList(items.content, eligibleFilter, withheld, included, candidates?.content),
        experiments,
        journeys,
      };
  return policy ? withPolicy(items, choice, policy, filter.nowMs, explain, priorities) : choice;
}

/**
 * The policy applied to an eligible choice: the flows and content it holds back are dropped
 * (with the journeys that brought them), the rest counted for the ledger.
 */
function withPolicy(
  items: { flows: readonly Servable[]; content: readonly Servable[] },
  choice: SessionChoice,
  { policy, history }: SessionPolicy,
  nowMs: number,
  explain: ItemDecision[] | undefined,
  priorities: ReadonlyMap<string, number> | undefined,
): SessionChoice {
  const all: Servable[] = [];
  for (const i of choice.flows) all.push(items.flows[i]!);
  for (const i of choice.content) all.push(items.content[i]!);
  const policyItem = (s: Servable): PolicyItem => {
    const priority = priorities?.get(s.id);
    return priority === undefined ? s : { ...s, priority };
  };
  const outcome = applyPolicy(all.map(policyItem), policy, history, nowMs);
  const counted = outcome.counted.map((k) => ({ id: all[k]!.id, scopes: all[k]!.scopes }));
  if (outcome.verdicts.size === 0) return { ...choice, counted };
  const nf = choice.flows.length;
  const flows = choice.flows.filter((_, k) => outcome.shown[k]);
  const content = choice.content.filter((_, k) => outcome.shown[nf + k]);
  const held = new Set<string>();
  for (const [k, verdict] of outcome.verdicts) {
    const item = all[k]!;
    held.add(item.id);
    if (explain) {
      const kind = k < nf ? 'flow' : 'content';
      const decision = explain.find((d) => d.kind === kind && d.id === item.id);
      if (decision) {
        decision.reason = verdict.reason;
        decision.detail = verdict.detail;
      }
    }
  }
  const journeys = choice.journeys.filter((j) => !held.has(j.contentId));
  return { ...choice, flows, content, journeys, counted };
}

const isGroup = (node: RuleNode): node is Extract<RuleNode, { rules: RuleNode[] }> =>
  typeof node === 'object' && node !== null && Array.isArray((node as { rules?: unknown }).rules);

/**
 * The first rule of an audience that fails for this context (explanations): the first failing
 * leaf of an AND, the first leaf of an OR (all fail), a NOT group itself. Names its field and
 * operator, e.g. `traits.plan eq`; null when the tree matches.
 */
export function firstFailingRule(tree: RuleNode, context: RuleContext): string | null {
  if (matchesRules(tree, context)) return null;
  const walk = (node: RuleNode): string => {
    if (!isGroup(node)) {
      const leaf = node as { field?: unknown; operator?: unknown };
      return `${String(leaf.field)} ${String(leaf.operator)}`;
    }
    const op = node.logicalOperator ?? 'AND';
    if (op === 'NOT') return 'NOT group';
    if (op === 'OR') return node.rules.length > 0 ? walk(node.rules[0]!) : 'empty OR group';
    for (const child of node.rules) if (!matchesRules(child, context)) return walk(child);
    return 'group';
  };
  return walk(tree);
}
