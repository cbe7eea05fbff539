import type { z } from 'zod';
import type { Executor } from '../../../db/client.js';
import { newId } from '../../../platform/ids.js';
import { CONTENT_DEFS, npsSurvey, recordOf, toContentRecord } from '../../content/index.js';
import type {
  ContributorChoice,
  DeliveryContributor,
  DeliveryItem,
  JourneyDue,
} from '../../delivery/index.js';
import { encodeRecord, servableOf, TRANSLATION_TYPES } from '../../delivery/index.js';
import { flowRecord, loadStepsOf, toFlowRecord } from '../../flows/index.js';
import { dueContent, type EnrollmentState } from '../engine/machine.js';
import type { Reentry } from '../engine/schemas.js';
import { enrollRefusal, type PreviousEnrollment } from '../engine/triggers.js';
import {
  CONTENT_TYPES,
  listShowableContent,
  listShowableFlows,
  listShowableSurveys,
} from '../store/content.js';
import { type EnrollmentStateEntry, enrollmentsOfUser, listInProgressOf } from '../store/enrollments.js';
import { listDeliveryJourneys, listPinnedVersions } from '../store/journeys.js';
import { lockAndReadPrevious, pairKey, startEnrollment } from './enroll.js';
import { graphsOf, type JourneyVersion, type VersionHead, versionKey } from './graphs.js';
import { type Live, persist } from './persist.js';

/**
 * The journeys' delivery contributor: what `POST /api/sdk/session` serves of journeys.
 *
 * - The snapshot (`load`) holds, as on-demand items, the flows and content that CONTENT nodes of
 *   the versions the tenant's non-archived journeys run show — each live version, and each one
 *   in-progress enrollments entered — (served only when a journey brings them in, whether or not
 *   they are published on their own), and the audience-only journeys with their live version.
 * - The user's state (`userState`, a column of the session's one lookup statement) is their
 *   in-progress enrollments waiting at CONTENT, and their enrollments in audience-only journeys.
 * - `choose` lists every due CONTENT node in `journeys` (and brings its item in), and enrolls the
 *   user into each PUBLISHED audience-only journey (MANUAL trigger with an audience) whose
 *   audience they match and whose re-entry allows it: the machine runs purely on the session's
 *   facts, so content due at once is served in this same round trip; `remember` stores the
 *   enrollment before the session answers (the advisory lock and a re-read of earlier
 *   enrollments make two first sessions enroll once). A session whose enrollment was refused
 *   (a concurrent one won) serves the winner's item instead, or nothing of that journey: an
 *   answer never names an enrollment that was not stored.
 */

interface AudienceOnly {
  id: string;
  audienceId: string;
  allowAnonymous: boolean;
  reentry: Reentry;
  graph: JourneyVersion;
}

export interface JourneyDeliveryData {
  /** Journeys whose enrollments may be served (not archived). */
  live: Set<string>;
  /** Content ids of CONTENT nodes the snapshot holds (existing, not archived). */
  available: Set<string>;
  audienceOnly: AudienceOnly[];
  /** The `priority` of CONTENT nodes that set one, by `nodeKey` (journey, version, node). */
  nodePriority: Map<string, number>;
}

const nodeKey = (journeyId: string, version: number | null, nodeId: string) =>
  `${journeyId}:${version}:${nodeId}`;

type StateEntry = EnrollmentStateEntry;

export interface JourneyUserState {
  entries: StateEntry[];
}

interface RememberItem {
  journeyId: string;
  live: Live;
  reentry: Reentry;
  /** The snapshot's `available` (what a winning enrollment may serve instead). */
  available: ReadonlySet<string>;
}

const flowCodec = flowRecord;
const contentCodecs = new Map<string, z.ZodType>(
  CONTENT_TYPES.map((slug) => [slug, recordOf(CONTENT_DEFS[slug])]),
);

async function onDemandItems(tx: Executor, tenantId: string, refs: { id: string; type: string }[]) {
  const ids = (type: (t: string) => boolean) => [
    ...new Set(refs.filter((r) => type(r.type)).map((r) => r.id)),
  ];
  const flowIds = ids((t) => t === 'flow');
  const npsIds = ids((t) => t === 'nps-survey');
  const contentIds = ids((t) => t !== 'flow' && t !== 'nps-survey');
  const items: DeliveryItem[] = [];
  const at = (d: Date | null, c: Date) => (d ?? c).getTime();
  if (flowIds.length > 0) {
    const rows = await listShowableFlows(tx, tenantId, flowIds);
    const steps = await loadStepsOf(
      tx,
      tenantId,
      rows.map((r) => r.id),
    );
    for (const r of rows) {
      const f = toFlowRecord(r, steps.get(r.id) ?? []);
      items.push({
        kind: 'flow',
        servable: servableOf({ id: f.id, audienceId: null, onDemand: true }),
        at: at(f.publishedAt, f.createdAt),
        record: encodeRecord(flowCodec, f),
        translationTypes: TRANSLATION_TYPES.flow,
        stepIds: f.steps.map((s) => s.id),
      });
    }
  }
  if (contentIds.length > 0) {
    const rows = await listShowableContent(tx, tenantId, contentIds);
    for (const row of rows) {
      const c = toContentRecord(row);
      items.push({
        kind: 'content',
        servable: servableOf({ id: c.id, audienceId: null, onDemand: true }),
        at: at(c.publishedAt, c.createdAt),
        record: encodeRecord(contentCodecs.get(c.contentType)!, c),
        translationTypes: TRANSLATION_TYPES.content(c.contentType),
      });
    }
  }
  if (npsIds.length > 0) {
    const rows = await listShowableSurveys(tx, tenantId, npsIds);
    for (const n of rows) {
      items.push({
        kind: 'content',
        servable: servableOf({ id: n.id, audienceId: null, onDemand: true }),
        at: at(n.publishedAt, n.createdAt),
        record: { contentType: 'nps-surveys', ...encodeRecord(npsSurvey, n) },
        translationTypes: TRANSLATION_TYPES.nps,
      });
    }
  }
  return items;
}

/** The item of an in-progress enrollment waiting at a CONTENT node whose item the snapshot holds. */
function dueOf(
  journeyId: string,
  enrollmentId: string,
  w: EnrollmentState['waiting'] | undefined,
  available: ReadonlySet<string>,
): JourneyDue | null {
  if (w?.kind !== 'content' || !available.has(w.contentId)) return null;
  const { nodeId, visit, contentType, contentId } = w;
  return { journeyId, enrollmentId, nodeId, visit, contentType, contentId };
}

function due(entry: StateEntry, data: JourneyDeliveryData): JourneyDue | null {
  if (entry.s !== 'in_progress' || !data.live.has(entry.j)) return null;
  return dueOf(entry.j, entry.e, entry.w, data.available);
}

/**
 * Per refused new enrollment (by id), what its session serves instead: the enrollment of the
 * same (journey, end user) in progress — accepted in this write, or stored before — at its due
 * content, or nothing (null).
 */
async function winnersOf(
  tx: Executor,
  refused: RememberItem[],
  written: Live[],
): Promise<Map<string, JourneyDue | null>> {
  const out = new Map<string, JourneyDue | null>();
  if (refused.length === 0) return out;
  const inWrite = new Map(written.map((l) => [pairKey(l.ref.journeyId, l.ref.endUserId), l]));
  const stored = new Map<string, { id: string; waiting: EnrollmentState['waiting'] }>();
  const elsewhere = refused.filter((i) => !inWrite.has(pairKey(i.journeyId, i.live.ref.endUserId)));
  if (elsewhere.length > 0) {
    const rows = await listInProgressOf(
      tx,
      elsewhere.map((i) => ({ journeyId: i.journeyId, endUserId: i.live.ref.endUserId })),
    );
    for (const r of rows) stored.set(pairKey(r.journeyId, r.endUserId), r);
  }
  for (const item of refused) {
    const key = pairKey(item.journeyId, item.live.ref.endUserId);
    const won = inWrite.get(key);
    const winner = won ? { id: won.ref.id, waiting: dueContent(won.state) } : stored.get(key);
    out.set(
      item.live.ref.id,
      winner ? dueOf(item.journeyId, winner.id, winner.waiting, item.available) : null,
    );
  }
  return out;
}

/** A session's choice as stored: each refused enrollment's item replaced by the winner's, or dropped. */
function asStored(choice: ContributorChoice, winners: Map<string, JourneyDue | null>): ContributorChoice {
  const refused = ((choice.remember ?? []) as RememberItem[]).filter((i) => winners.has(i.live.ref.id));
  if (refused.length === 0) return choice;
  const gone = new Set(refused.map((i) => i.live.ref.id));
  const journeys = (choice.journeys ?? []).filter((j) => !gone.has(j.enrollmentId));
  for (const item of refused) {
    const winner = winners.get(item.live.ref.id);
    if (winner && !journeys.some((j) => j.enrollmentId === winner.enrollmentId)) journeys.push(winner);
  }
  const include = [...new Set(journeys.map((j) => j.contentId))];
  const priorities = choice.priorities?.filter((p) => include.includes(p.id));
  return { journeys, include, ...(priorities?.length ? { priorities } : {}) };
}

export const journeyDelivery: DeliveryContributor<JourneyDeliveryData, JourneyUserState> = {
  name: 'journeys',

  async load(tx, tenantId) {
    const journeyRows = await listDeliveryJourneys(tx, tenantId);
    if (journeyRows.length === 0)
      return { data: { live: new Set(), available: new Set(), audienceOnly: [], nodePriority: new Map() } };
    const heads: VersionHead[] = [];
    for (const j of journeyRows) {
      if (j.liveVersion !== null) heads.push({ tenantId, journeyId: j.id, version: j.liveVersion });
    }
    for (const p of await listPinnedVersions(
      tx,
      journeyRows.map((j) => j.id),
    )) {
      heads.push({ tenantId, journeyId: p.journeyId, version: p.version });
    }
    const graphs = await graphsOf(tx, heads);
    const refs: { id: string; type: string }[] = [];
    const nodePriority = new Map<string, number>();
    for (const [key, graph] of graphs) {
      const journeyId = key.slice(0, key.indexOf(':'));
      for (const n of graph.nodes.values()) {
        if (n.type !== 'CONTENT') continue;
        refs.push({ id: n.contentId, type: n.config.contentType });
        if (n.config.priority !== undefined)
          nodePriority.set(nodeKey(journeyId, graph.version, n.id), n.config.priority);
      }
    }
    const items = await onDemandItems(tx, tenantId, refs);
    const audienceOnly: AudienceOnly[] = [];
    for (const j of journeyRows) {
      if (j.status !== 'PUBLISHED' || j.liveVersion === null) continue;
      const graph = graphs.get(versionKey(j.id, j.liveVersion));
      if (graph?.trigger?.config.triggerType !== 'MANUAL' || !graph.audienceId) continue;
      audienceOnly.push({
        id: j.id,
        audienceId: graph.audienceId,
        allowAnonymous: graph.allowAnonymous,
        reentry: graph.reentry,
        graph,
      });
    }
    return {
      items,
      audienceIds: audienceOnly.map((j) => j.audienceId),
      data: {
        live: new Set(journeyRows.map((j) => j.id)),
        available: new Set(items.map((i) => i.servable.id)),
        audienceOnly,
        nodePriority,
      },
    };
  },

  userState: {
    sql: enrollmentsOfUser.sql,
    parse: (value) => ({ entries: enrollmentsOfUser.parse(value) }),
  },

  choose(data, state, facts) {
    const journeys: JourneyDue[] = [];
    const include: string[] = [];
    const remember: RememberItem[] = [];
    const priorities: { id: string; priority: number }[] = [];
    // A CONTENT node's own priority, when it sets one, replaces its item's (issue 38).
    const withPriority = (d: JourneyDue, version: number | null) => {
      journeys.push(d);
      include.push(d.contentId);
      const priority = data.nodePriority.get(nodeKey(d.journeyId, version, d.nodeId));
      if (priority !== undefined) priorities.push({ id: d.contentId, priority });
    };
    const entries = state?.entries ?? [];
    for (const entry of entries) {
      const d = due(entry, data);
      if (d) withPriority(d, entry.v);
    }
    if (facts.endUserId !== null) {
      for (const j of data.audienceOnly) {
        if (facts.userId === null && !j.allowAnonymous) continue;
        if (!facts.inAudience(j.audienceId)) continue;
        const previous: PreviousEnrollment[] = entries
          .filter((e) => e.j === j.id)
          .map((e) => ({ status: e.s, enrolledAt: e.a, endedAt: e.x }));
        if (enrollRefusal(j.reentry, previous, facts.nowMs) !== null) continue;
        const live = startEnrollment(
          j.graph,
          { tenantId: facts.tenantId, journeyId: j.id, endUserId: facts.endUserId },
          facts.nowMs,
          facts.rules,
          newId(),
        );
        remember.push({ journeyId: j.id, live, reentry: j.reentry, available: data.available });
        const content = dueOf(j.id, live.ref.id, dueContent(live.state), data.available);
        if (content) withPriority(content, j.graph.version);
      }
    }
    return {
      journeys,
      include,
      ...(priorities.length > 0 ? { priorities } : {}),
      ...(remember.length > 0 ? { remember } : {}),
    };
  },

  async remember(exec, entries) {
    const items = entries.flatMap((e) => (e.choice.remember ?? []) as RememberItem[]);
    if (items.length === 0) return entries.map((e) => e.choice);
    const winners = await exec.transaction(async (tx) => {
      const previous = await lockAndReadPrevious(
        tx,
        items.map((i) => ({ journeyId: i.journeyId, endUserId: i.live.ref.endUserId })),
      );
      const accepted: Live[] = [];
      for (const item of items) {
        const key = pairKey(item.journeyId, item.live.ref.endUserId);
        const before = previous.get(key) ?? [];
        if (enrollRefusal(item.reentry, before, item.live.ref.enrolledAt) !== null) continue;
        accepted.push(item.live);
        previous.set(key, [
          ...before,
          { status: 'in_progress', enrolledAt: item.live.ref.enrolledAt, endedAt: null },
        ]);
      }
      const written = await persist(tx, accepted);
      const ok = new Set(written.map((l) => l.ref.id));
      return winnersOf(
        tx,
        items.filter((i) => !ok.has(i.live.ref.id)),
        written,
      );
    });
    return entries.map((e) => asStored(e.choice, winners));
  },
};
