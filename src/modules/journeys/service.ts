import type { Executor, Transaction } from '../../db/client.js';
import { recordAudits } from '../../platform/audit.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { invalidTransition } from '../../platform/errors.js';
import { idParams } from '../../platform/http/schemas.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { Referrer } from '../../platform/references.js';
import { sameJson } from '../../platform/same-json.js';
import { stateColumns } from '../../platform/state-machine.js';
import { assertAudienceUsable } from '../audiences/index.js';
import { assertPlanAllows } from '../pricing/index.js';
import { publishSnapshot, type VersionedKind } from '../versions/index.js';
import type { GoalConfig, JourneyNodeInput } from './engine/schemas.js';
import {
  assertPublishable,
  type Canvas,
  countsOf,
  findJourney,
  type JourneyRecord,
  type JourneySnapshot,
  journeyKey,
  journeyMissing,
  journeyRecordOf,
  journeySnapshot,
  loadCanvas,
  toListItem,
  triggerTypeOf,
} from './records.js';
import { graphsOf, versionKey } from './runtime/graphs.js';
import {
  type CanvasBody,
  type CreateJourneyInput,
  journeyResponse,
  type ListJourneysQuery,
  type UpdateJourneyInput,
} from './schemas.js';
import { stopInProgressEnrollments } from './store/enrollments.js';
import {
  bumpCanvasVersion,
  deleteCanvas,
  findJourneysTargeting,
  insertCanvas as insertCanvasRows,
  insertJourney,
  type JourneyRow,
  listJourneysPage,
  listJourneysWithLiveVersion,
  lockPublishedJourneys,
  pauseJourneys,
  updateJourney as updateJourneyRow,
} from './store/journeys.js';
import { JOURNEY_AUDIT_ACTION, type JourneyAction, journeyLifecycle } from './transitions.js';

const ENTITY = 'journey';

// ---- reads -------------------------------------------------------------------------------------

export async function listJourneys(ctx: ServiceCtx, query: ListJourneysQuery) {
  const page = await listJourneysPage(ctx.db, ctx.tenantId, query);
  const counts = await countsOf(
    ctx.db,
    ctx.tenantId,
    page.data.map((r) => r.id),
  );
  return { ...page, data: page.data.map((row) => toListItem(row, counts.get(row.id)!)) };
}

export async function getJourney(ctx: ServiceCtx, id: string): Promise<JourneyRecord> {
  const row = await findJourney(ctx.db, ctx.tenantId, id);
  if (!row) throw journeyMissing();
  return journeyRecordOf(ctx.db, row);
}

// ---- canvas ------------------------------------------------------------------------------------

/** The canvas as it will be stored: every node with an id (supplied ids kept, others generated). */
function withIds(body: { nodes?: JourneyNodeInput[]; edges?: CanvasBody['edges'] }): Canvas {
  return {
    nodes: (body.nodes ?? []).map((n) => ({ ...n, id: n.id ?? newId() })) as Canvas['nodes'],
    edges: body.edges ?? [],
  };
}

/** Writes a canvas for a journey that has none (new, or just emptied). */
async function insertCanvas(tx: Executor, tenantId: string, journeyId: string, canvas: Canvas) {
  await insertCanvasRows(
    tx,
    canvas.nodes.map((n, ord) => ({
      journeyId,
      id: n.id,
      tenantId,
      ord,
      type: n.type,
      config: n.config as Record<string, unknown>,
      contentId: n.type === 'CONTENT' ? n.contentId : null,
      position: n.position,
    })),
    canvas.edges.map((e, ord) => ({
      journeyId,
      ord,
      tenantId,
      sourceNodeId: e.sourceNodeId,
      targetNodeId: e.targetNodeId,
      label: e.label ?? null,
    })),
  );
}

// ---- create and update -------------------------------------------------------------------------

/**
 * Creates a journey with its canvas inside the caller's transaction (the create route, and the
 * AI module's commit-content for type `journey`): plan limit, audience check, the rows, the audit
 * entry. Returns the full record.
 */
export async function createJourneyInTx(
  tx: Executor,
  ctx: ServiceCtx,
  input: CreateJourneyInput,
): Promise<JourneyRecord> {
  await assertPlanAllows(tx, ctx.tenantId, 'journeys', ctx.now);
  if (input.audienceId) await assertAudienceUsable(tx, ctx.tenantId, input.audienceId, 'audienceId');
  const canvas = withIds(input);
  const row = await insertJourney(tx, {
    id: newId(),
    tenantId: ctx.tenantId,
    siteId: input.siteId,
    name: input.name,
    description: input.description ?? null,
    status: 'DRAFT',
    audienceId: input.audienceId ?? null,
    settings: input.settings ?? { reentry: 'never' },
    goalConfig: (input.goalConfig ?? null) as Record<string, unknown> | null,
    allowAnonymous: input.allowAnonymous ?? false,
    // The live version's (none yet).
    triggerType: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  await insertCanvas(tx, ctx.tenantId, row.id, canvas);
  await audit(ctx, tx, {
    action: 'JOURNEY_CREATED',
    entityType: ENTITY,
    entityId: row.id,
    metadata: { name: row.name, nodes: canvas.nodes.length, edges: canvas.edges.length },
  });
  return journeyRecordOf(tx, row);
}

export const createJourney = (ctx: ServiceCtx, input: CreateJourneyInput) =>
  ctx.db.transaction((tx) => createJourneyInTx(tx, ctx, input));

const UPDATABLE = [
  'name',
  'siteId',
  'description',
  'audienceId',
  'settings',
  'goalConfig',
  'allowAnonymous',
] as const;

/**
 * Any subset of the journey's fields; never the canvas. Only fields whose value differs are
 * written and audited (a PATCH that changes nothing writes nothing). The working copy only: a
 * published journey runs its live version until published again (which validates the goal).
 */
export async function updateJourney(ctx: ServiceCtx, id: string, input: UpdateJourneyInput) {
  return ctx.db.transaction(async (tx) => {
    const journey = await findJourney(tx, ctx.tenantId, id, { lock: true });
    if (!journey) throw journeyMissing();
    const set: Partial<JourneyRow> = {};
    const changed: string[] = [];
    for (const key of UPDATABLE) {
      if (input[key] !== undefined && !sameJson(input[key], journey[key])) {
        (set as Record<string, unknown>)[key] = input[key];
        changed.push(key);
      }
    }
    if (changed.length === 0) return journeyRecordOf(tx, journey);
    if (input.audienceId) await assertAudienceUsable(tx, ctx.tenantId, input.audienceId, 'audienceId');
    const row = await updateJourneyRow(tx, ctx.tenantId, journey.id, { ...set, updatedAt: ctx.now });
    await audit(ctx, tx, {
      action: 'JOURNEY_UPDATED',
      entityType: ENTITY,
      entityId: journey.id,
      metadata: { changed },
    });
    return journeyRecordOf(tx, row);
  });
}

/**
 * `PUT /canvas`: the working copy's canvas replaced in one transaction (supplied node ids kept,
 * others generated); shapes only, whatever the status: enrollments run published versions, and
 * publishing validates the canvas. Archived: 409.
 */
export async function replaceCanvas(ctx: ServiceCtx, id: string, body: CanvasBody) {
  return ctx.db.transaction(async (tx) => {
    const journey = await findJourney(tx, ctx.tenantId, id, { lock: true });
    if (!journey) throw journeyMissing();
    if (journey.status === 'ARCHIVED') {
      throw invalidTransition(journey.status, 'replace the canvas');
    }
    const canvas = withIds(body);
    await deleteCanvas(tx, ctx.tenantId, journey.id);
    await insertCanvas(tx, ctx.tenantId, journey.id, canvas);
    const row = await bumpCanvasVersion(tx, ctx.tenantId, journey.id, ctx.now);
    await audit(ctx, tx, {
      action: 'JOURNEY_UPDATED',
      entityType: ENTITY,
      entityId: journey.id,
      metadata: { changed: ['canvas'], nodes: canvas.nodes.length, edges: canvas.edges.length },
    });
    return journeyRecordOf(tx, row);
  });
}

// ---- lifecycle and versions -------------------------------------------------------------------

/**
 * Publishing the journey's working copy as its live version (docs/versions.md): a new version
 * unless it equals the live one (`requireChange`, a PUBLISHED journey: then 409), after publish
 * validation (a 400 rolls the version back with the transaction). The row mirrors the live
 * version and its trigger type, which is what the engine reads. Under the caller's row lock.
 */
async function takeJourneyVersion(
  tx: Executor,
  ctx: ServiceCtx,
  row: JourneyRow,
  opts: { requireChange?: boolean; note?: string | undefined } = {},
) {
  const canvas = await loadCanvas(tx, ctx.tenantId, row.id);
  const taken = await publishSnapshot(tx, journeyKey(ctx.tenantId, row.id), journeySnapshot(row, canvas), {
    actorId: ctx.actorId,
    now: ctx.now,
    note: opts.note,
    requireChange: opts.requireChange ?? false,
    status: row.status,
  });
  await assertPublishable(tx, ctx.tenantId, canvas, row.goalConfig as GoalConfig | null);
  return { version: taken.version, live: { liveVersion: taken.version, triggerType: triggerTypeOf(canvas) } };
}

/**
 * Publish under the caller's row lock: a PUBLISHED journey's working copy becomes the next
 * version (409 without changes); from DRAFT or PAUSED the journey goes live on its working copy
 * (a resumed journey unchanged keeps its version). Audit JOURNEY_PUBLISHED with `version`.
 */
async function publishLocked(tx: Executor, ctx: ServiceCtx, journey: JourneyRow, note?: string) {
  const republish = journey.status === 'PUBLISHED';
  const to = republish ? 'PUBLISHED' : journeyLifecycle.apply(journey.status, 'publish');
  const taken = await takeJourneyVersion(tx, ctx, journey, { requireChange: republish, note });
  const row = await updateJourneyRow(tx, ctx.tenantId, journey.id, {
    ...(republish ? { publishedAt: ctx.now, updatedAt: ctx.now } : stateColumns(journey.status, to, ctx.now)),
    ...taken.live,
  });
  await audit(ctx, tx, {
    action: JOURNEY_AUDIT_ACTION.PUBLISHED,
    entityType: ENTITY,
    entityId: journey.id,
    metadata: { from: journey.status, to, action: 'publish', version: taken.version },
  });
  return { row, version: taken.version };
}

/**
 * One lifecycle action under a row lock: the table decides (409 otherwise); a move to the state
 * the journey is already in changes nothing. Publish takes a version (above); archive stops every
 * in-progress enrollment in the same transaction; restore counts against the plan again.
 */
async function transition(
  ctx: ServiceCtx,
  id: string,
  action: JourneyAction,
  note?: string,
): Promise<JourneyRecord> {
  return ctx.db.transaction(async (tx) => {
    const journey = await findJourney(tx, ctx.tenantId, id, { lock: true });
    if (!journey) throw journeyMissing();
    if (action === 'publish') return journeyRecordOf(tx, (await publishLocked(tx, ctx, journey, note)).row);
    const to = journeyLifecycle.apply(journey.status, action);
    if (to === journey.status) return journeyRecordOf(tx, journey);
    if (journey.status === 'ARCHIVED') await assertPlanAllows(tx, ctx.tenantId, 'journeys', ctx.now);
    const stopped = to === 'ARCHIVED' ? await stopInProgressEnrollments(tx, [journey.id], ctx.now) : 0;
    const row = await updateJourneyRow(
      tx,
      ctx.tenantId,
      journey.id,
      stateColumns(journey.status, to, ctx.now),
    );
    await audit(ctx, tx, {
      action: JOURNEY_AUDIT_ACTION[to],
      entityType: ENTITY,
      entityId: journey.id,
      metadata: {
        ...(to === 'DRAFT' ? { changed: ['status'] } : {}),
        from: journey.status,
        to,
        action,
        ...(to === 'ARCHIVED' ? { stoppedEnrollments: stopped } : {}),
      },
    });
    return journeyRecordOf(tx, row);
  });
}

export const publishJourney = (ctx: ServiceCtx, id: string, note?: string) =>
  transition(ctx, id, 'publish', note);
export const unpublishJourney = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'unpublish');
export const pauseJourney = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'pause');
export const archiveJourney = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'archive');
export const restoreJourney = (ctx: ServiceCtx, id: string) => transition(ctx, id, 'restore');

/**
 * The working copy becomes `snapshot` (a version restored): fields and canvas, node ids kept.
 * Archived: 409, as for `PUT /canvas`.
 */
async function writeJourneyWorkingCopy(tx: Transaction, ctx: ServiceCtx, id: string, snapshot: unknown) {
  const { nodes, edges, ...fields } = snapshot as JourneySnapshot;
  const journey = (await findJourney(tx, ctx.tenantId, id, { lock: true }))!;
  if (journey.status === 'ARCHIVED') throw invalidTransition(journey.status, 'restore a version');
  const canvas = { nodes, edges } as unknown as Canvas;
  if (sameJson(journeySnapshot(journey, await loadCanvas(tx, ctx.tenantId, id)), snapshot)) return;
  if (fields.audienceId) await assertAudienceUsable(tx, ctx.tenantId, fields.audienceId, 'audienceId');
  await updateJourneyRow(tx, ctx.tenantId, id, {
    name: fields.name,
    description: fields.description,
    siteId: fields.siteId,
    audienceId: fields.audienceId,
    settings: fields.settings,
    goalConfig: fields.goalConfig,
    allowAnonymous: fields.allowAnonymous,
  });
  await deleteCanvas(tx, ctx.tenantId, id);
  await insertCanvas(tx, ctx.tenantId, id, canvas);
  await bumpCanvasVersion(tx, ctx.tenantId, id, ctx.now);
}

/** The version routes of journeys (`/api/journeys/:id/versions…`). */
export const journeyVersions: VersionedKind = {
  itemType: 'journey',
  path: '/api/journeys/:id',
  params: idParams,
  tags: ['journeys'],
  entityType: ENTITY,
  auditPrefix: 'JOURNEY',
  async find(exec, ctx, params, opts) {
    const row = await findJourney(exec, ctx.tenantId, params.id, opts);
    if (!row) throw journeyMissing();
    return row.id;
  },
  restore: writeJourneyWorkingCopy,
  async publish(tx, ctx, id, note) {
    const journey = (await findJourney(tx, ctx.tenantId, id, { lock: true }))!;
    return { version: (await publishLocked(tx, ctx, journey, note)).version };
  },
  async read(exec, ctx, id) {
    return journeyRecordOf(exec, (await findJourney(exec, ctx.tenantId, id))!);
  },
  response: journeyResponse,
};

// ---- references --------------------------------------------------------------------------------

/**
 * What an audience is referenced by, for the audiences module: the non-archived journeys whose
 * working copy targets it, and those whose live version does (it decides who enters until the
 * working copy is published), so an audience is never deleted under a running journey.
 */
export async function findJourneysUsingAudience(
  exec: Executor,
  tenantId: string,
  audienceId: string,
): Promise<Referrer[]> {
  const working = await findJourneysTargeting(exec, tenantId, audienceId);
  if (!isUuid(audienceId)) return working;
  const listed = new Set(working.map((r) => r.id));
  const rows = (await listJourneysWithLiveVersion(exec, tenantId)).filter((r) => !listed.has(r.id));
  const graphs = await graphsOf(
    exec,
    rows.map((r) => ({ tenantId, journeyId: r.id, version: r.liveVersion })),
  );
  const live: Referrer[] = rows
    .filter((r) => graphs.get(versionKey(r.id, r.liveVersion))?.audienceId === audienceId)
    .map((r) => ({ type: 'journey', id: r.id, name: r.name }));
  if (live.length === 0) return working;
  return [...working, ...live].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Dependent disabler of a deleted flow (`DELETE /api/flows/:id?disableDependents=true`): every
 * PUBLISHED journey whose live version (what new enrollments run, not an unpublished working
 * copy) has a CONTENT node showing the flow is paused (no new enrollments; the enrollments in it
 * go on, and the flow, archived, is no longer listed to them). One audit entry each.
 */
export async function pauseJourneysUsingFlow(
  exec: Executor,
  tenantId: string,
  flowId: string,
  now: Date,
): Promise<Referrer[]> {
  if (!isUuid(flowId)) return [];
  const published = await lockPublishedJourneys(exec, tenantId);
  const graphs = await graphsOf(
    exec,
    published.map((p) => ({ tenantId, journeyId: p.id, version: p.liveVersion })),
  );
  const showing = published.filter((p) =>
    [...(graphs.get(versionKey(p.id, p.liveVersion))?.nodes.values() ?? [])].some(
      (n) => n.type === 'CONTENT' && n.contentId === flowId && n.config.contentType === 'flow',
    ),
  );
  const rows = await pauseJourneys(
    exec,
    tenantId,
    showing.map((p) => p.id),
    now,
  );
  await recordAudits(
    exec,
    rows.map((r) => ({
      tenantId,
      action: 'JOURNEY_PAUSED',
      entityType: ENTITY,
      entityId: r.id,
      metadata: { from: 'PUBLISHED', to: 'PAUSED', reason: 'flow deleted', flowId },
    })),
  );
  return rows.map((r) => ({ type: 'journey', id: r.id, name: r.name }));
}
