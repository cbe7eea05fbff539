import type { Executor } from '../../../db/client.js';
import { matchesRules, type RuleContext, type RuleNode } from '../../../engine/rules.js';
import { loadLiveAudiences } from '../../audiences/index.js';
import type { EffectContext, EventEffect, ProcessedBatch, StoredEvent } from '../../events/index.js';
import { enrollRefusal, type PreviousEnrollment, triggerMatches } from '../engine/triggers.js';
import { resolveEndUsers } from '../store/end-users.js';
import { lockInProgressEnrollmentsOf } from '../store/enrollments.js';
import { type LiveJourney, listLiveJourneys } from '../store/journeys.js';
import { asPrevious, lockAndReadPrevious, pairKey, ruleContextFor, startEnrollment } from './enroll.js';
import { graphsOf, type JourneyVersion, type VersionHead, versionKey } from './graphs.js';
import { feed, type Live, persist, storedLive } from './persist.js';

/**
 * The journeys' event effect: what accepted SDK events do to enrollments, inside the event
 * batch's transaction (so each batch's journey changes commit exactly once, with the batch).
 *
 * For a chunk of batches, set-based: one query for the tenants' live journeys (nothing more when
 * none has one), one for the events' end users, one that locks their in-progress enrollments, and
 * for trigger candidates one for the advisory locks and one for earlier enrollments (re-entry);
 * then the events are fed in time order through the pure machine, and everything it decided is
 * written by `persist` (one statement per table).
 *
 * - Every event of an end user goes to each of their in-progress enrollments as an `event` input:
 *   the goal (any time) and WAIT_FOR_EVENT.
 * - An event reporting journey content (below) carrying the enrollment's `enrollmentId` and the
 *   `nodeId` it waits at is `contentDone` for that node (`properties.visit` if sent, else the
 *   visit it waits at).
 * - CUSTOM_EVENT, URL_MATCH (PAGE_VIEW and session starts) and ELEMENT_CLICK triggers of PUBLISHED
 *   journeys enroll the event's end user when in the journey's audience (current traits), when
 *   identified or the journey allows anonymous visitors, and when re-entry allows.
 */

/** Events that report journey content seen or finished (with journeyId, enrollmentId, nodeId). */
export const CONTENT_REPORT_TYPES: ReadonlySet<string> = new Set([
  'CONTENT_RENDERED',
  'FLOW_STARTED',
  'STEP_VIEWED',
  'FLOW_COMPLETED',
  'FLOW_DISMISSED',
  'FLOW_SKIPPED',
  'SURVEY_RESPONSE',
  'NPS_RESPONSE',
  'CONTENT_SUBMISSION_PERSISTED',
]);

const EVENT_TRIGGERS: ReadonlySet<string> = new Set(['CUSTOM_EVENT', 'URL_MATCH', 'ELEMENT_CLICK']);

interface Item {
  tenantId: string;
  event: StoredEvent;
  at: number;
  /** Index into the end-user lookup. */
  who: number;
}

interface EndUser {
  id: string;
  externalId: string | null;
  context: RuleContext;
}

const whoKey = (tenantId: string, e: StoredEvent) =>
  `${tenantId}\u0000${e.userId ?? ''}\u0000${e.anonymousId ?? ''}`;

async function applyJourneyEvents(
  tx: Executor,
  batches: ProcessedBatch[],
  effects: EffectContext,
): Promise<void> {
  const tenants = new Set<string>();
  for (const b of batches) {
    if (b.events.some((e) => e.userId || e.anonymousId)) tenants.add(b.tenantId);
  }
  if (tenants.size === 0) return;
  const journeyRows = await listLiveJourneys(tx, [...tenants]);
  if (journeyRows.length === 0) return;
  const byTenant = new Map<string, LiveJourney[]>();
  for (const j of journeyRows) {
    const list = byTenant.get(j.tenantId);
    if (list) list.push(j);
    else byTenant.set(j.tenantId, [j]);
  }

  // The events of tenants with journeys, in time order, and who sent them.
  const whoIndex = new Map<string, number>();
  const whoCols: [string[], (string | null)[], (string | null)[]] = [[], [], []];
  const items: Item[] = [];
  for (const b of batches) {
    if (!byTenant.has(b.tenantId)) continue;
    for (const event of b.events) {
      if (!event.userId && !event.anonymousId) continue;
      const key = whoKey(b.tenantId, event);
      let who = whoIndex.get(key);
      if (who === undefined) {
        who = whoCols[0].length;
        whoIndex.set(key, who);
        whoCols[0].push(b.tenantId);
        whoCols[1].push(event.userId || null);
        whoCols[2].push(event.anonymousId || null);
      }
      items.push({ tenantId: b.tenantId, event, at: Date.parse(event.timestamp), who });
    }
  }
  if (items.length === 0) return;
  items.sort((a, b) => a.at - b.at);

  const users = await resolveEndUsers(tx, { tenantIds: whoCols[0], exts: whoCols[1], anons: whoCols[2] });
  const endUsers: (EndUser | undefined)[] = users.map(
    (u) => u && { id: u.id, externalId: u.externalId, context: ruleContextFor(u.externalId, u.traits) },
  );

  // In-progress enrollments of these end users, locked (in id order) for the rest of the chunk.
  const userPairs = new Map<string, { tenantId: string; endUserId: string }>();
  for (const item of items) {
    const u = endUsers[item.who];
    if (u) userPairs.set(u.id, { tenantId: item.tenantId, endUserId: u.id });
  }
  if (userPairs.size === 0) return;
  const active = await lockInProgressEnrollmentsOf(tx, [...userPairs.values()]);

  // The versions that run: each journey's live one (new enrollments) and the one each
  // in-progress enrollment entered.
  const heads: VersionHead[] = [];
  for (const j of journeyRows) {
    if (j.liveVersion !== null) heads.push({ tenantId: j.tenantId, journeyId: j.id, version: j.liveVersion });
  }
  for (const r of active) {
    if (r.journeyVersion !== null)
      heads.push({ tenantId: r.tenantId, journeyId: r.journeyId, version: r.journeyVersion });
  }
  const graphs = await graphsOf(tx, heads);
  const liveGraph = (j: LiveJourney) =>
    j.liveVersion === null ? undefined : graphs.get(versionKey(j.id, j.liveVersion));
  const lives: Live[] = [];
  const activeByUser = new Map<string, Live[]>();
  const addActive = (endUserId: string, live: Live) => {
    const list = activeByUser.get(endUserId);
    if (list) list.push(live);
    else activeByUser.set(endUserId, [live]);
  };
  for (const row of active) {
    const live = storedLive(row);
    lives.push(live);
    addActive(row.endUserId, live);
  }

  // Trigger candidates: (journey, end user) pairs some event may enroll. The audiences are read
  // only for journeys whose trigger an event of the chunk fires (most chunks need none).
  const triggered = (j: LiveJourney, graph: JourneyVersion | undefined, item: Item, u: EndUser): boolean => {
    if (j.status !== 'PUBLISHED' || !j.triggerType || !EVENT_TRIGGERS.has(j.triggerType)) return false;
    if (!graph?.trigger || !triggerMatches(graph.trigger, item.event)) return false;
    return u.externalId !== null || graph.allowAnonymous;
  };
  // A pair already in progress cannot enroll again (nobody is enrolled twice at once): it needs
  // no lock and no look at its history, which keeps a journey's steady state cheap.
  const inProgress = new Set(lives.map((l) => pairKey(l.ref.journeyId, l.ref.endUserId)));
  const fired: { j: LiveJourney; graph: JourneyVersion; u: EndUser }[] = [];
  for (const item of items) {
    const u = endUsers[item.who];
    if (!u) continue;
    for (const j of byTenant.get(item.tenantId)!) {
      const graph = liveGraph(j);
      if (!inProgress.has(pairKey(j.id, u.id)) && triggered(j, graph, item, u))
        fired.push({ j, graph: graph!, u });
    }
  }
  const audiences = new Map<string, RuleNode>();
  const audienceIds = new Map<string, Set<string>>();
  for (const { j, graph } of fired) {
    if (graph.audienceId)
      audienceIds.set(j.tenantId, (audienceIds.get(j.tenantId) ?? new Set()).add(graph.audienceId));
  }
  for (const [tenantId, ids] of audienceIds) {
    for (const [id, tree] of await loadLiveAudiences(tx, tenantId, [...ids])) audiences.set(id, tree);
  }
  const inAudience = (graph: JourneyVersion, u: EndUser): boolean => {
    if (!graph.audienceId) return true;
    const tree = audiences.get(graph.audienceId);
    return tree !== undefined && matchesRules(tree, u.context);
  };
  const mayEnrollOn = (j: LiveJourney, graph: JourneyVersion | undefined, item: Item, u: EndUser) =>
    triggered(j, graph, item, u) && inAudience(graph!, u);
  const candidates = fired
    .filter(({ graph, u }) => inAudience(graph, u))
    .map(({ j, u }) => ({ journeyId: j.id, endUserId: u.id }));
  const previous: Map<string, PreviousEnrollment[]> =
    candidates.length > 0 ? await lockAndReadPrevious(tx, candidates) : new Map();

  for (const item of items) {
    const u = endUsers[item.who];
    if (!u) continue;
    const ctx = { nowMs: item.at, context: u.context };
    for (const live of activeByUser.get(u.id) ?? []) {
      if (live.state.status !== 'in_progress') continue;
      const graph =
        live.ref.version === null ? undefined : graphs.get(versionKey(live.ref.journeyId, live.ref.version));
      if (!graph) continue;
      feed(live, graph, { type: 'event', event: item.event }, ctx);
      const props = item.event.properties;
      const w = live.state.waiting;
      if (
        w?.kind === 'content' &&
        CONTENT_REPORT_TYPES.has(item.event.type) &&
        props?.enrollmentId === live.ref.id &&
        props.nodeId === w.nodeId
      ) {
        const sent = typeof props.visit === 'string' ? Number(props.visit) : props.visit;
        const visit = typeof sent === 'number' && Number.isInteger(sent) ? sent : w.visit;
        feed(live, graph, { type: 'contentDone', nodeId: w.nodeId, visit }, ctx);
      }
    }
    if (previous.size === 0) continue;
    for (const j of byTenant.get(item.tenantId)!) {
      const graph = liveGraph(j);
      if (!graph || !mayEnrollOn(j, graph, item, u)) continue;
      const key = pairKey(j.id, u.id);
      if (!previous.has(key)) continue; // in progress when the chunk began
      const before = previous.get(key)!;
      if (enrollRefusal(graph.reentry, before, item.at) !== null) continue;
      const live = startEnrollment(
        graph,
        { tenantId: item.tenantId, journeyId: j.id, endUserId: u.id },
        item.at,
        u.context,
      );
      lives.push(live);
      previous.set(key, [...before, asPrevious(live)]);
      if (live.state.status === 'in_progress') addActive(u.id, live);
    }
  }
  await persist(tx, lives, effects);
}

export const journeyEventsEffect: EventEffect = {
  name: 'journeys',
  // Events name end users created (and traits set) by the activity effect.
  runsAfter: ['end-user-activity'],
  apply: applyJourneyEvents,
};
