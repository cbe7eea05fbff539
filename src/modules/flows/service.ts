import type { Executor, Transaction } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { idParams } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import type { Referrer } from '../../platform/references.js';
import { assertReference } from '../../platform/references-check.js';
import { sameJson } from '../../platform/same-json.js';
import { assertScheduleWindow } from '../../platform/schedule.js';
import { stateColumns } from '../../platform/state-machine.js';
import { assertAudienceUsable } from '../audiences/index.js';
import { assertPlanAllows } from '../pricing/index.js';
import { publishSnapshot, type VersionedKind, versionState } from '../versions/index.js';
import { emitWebhookEvents } from '../webhooks/index.js';
import {
  type FlowRecord,
  flowMissing,
  flowSnapshot,
  stepFields,
  stepValues,
  toFlowRecord,
} from './records.js';
import {
  type CreateFlowInput,
  type FlowTemplate,
  type FlowTrigger,
  flowResponse,
  type InlineStep,
  type ListFlowsQuery,
  type UpdateFlowInput,
} from './schemas.js';
import {
  deleteStepsOf,
  type FlowRow,
  findFlow,
  flowExists,
  insertFlow,
  insertSteps,
  listFlowsPage,
  loadSteps,
  type NewFlowRow,
  type StepRow,
  updateFlowRow,
} from './store.js';
import { FLOW_AUDIT_ACTION, type FlowAction, nextFlowStatus } from './transitions.js';

const ENTITY = 'flow';

// ---- reads -----------------------------------------------------------------------------------

export async function listFlows(ctx: ServiceCtx, query: ListFlowsQuery) {
  const page = await listFlowsPage(ctx.db, ctx.tenantId, query, query);
  return {
    ...page,
    data: page.data.map(({ steps, ...row }) => ({
      ...row,
      template: row.template as FlowTemplate,
      trigger: row.trigger as FlowTrigger | null,
      _count: { steps },
    })),
  };
}

/** The full record of a row and its steps: with its live version and whether the working copy differs from it. */
export async function versionedRecord(exec: Executor, row: FlowRow, steps: StepRow[]): Promise<FlowRecord> {
  const state = await versionState(exec, flowKey(row.tenantId, row.id), flowSnapshot(row, steps));
  return { ...toFlowRecord(row, steps), ...state };
}

/** The full record (flow and its ordered steps) of a row already read. */
async function withSteps(exec: Executor, row: FlowRow): Promise<FlowRecord> {
  return versionedRecord(exec, row, await loadSteps(exec, row.tenantId, row.id));
}

const flowKey = (tenantId: string, itemId: string) => ({ tenantId, itemType: 'flow' as const, itemId });

/**
 * Publishing the flow's working copy (it is, or is becoming, PUBLISHED): a new live version unless
 * it equals the live one; `requireChange` (republishing a PUBLISHED flow): no change is 409.
 */
export async function takeFlowVersion(
  tx: Executor,
  ctx: Pick<ServiceCtx, 'actorId' | 'now'>,
  row: FlowRow,
  opts: { requireChange?: boolean; note?: string | undefined } = {},
) {
  const steps = await loadSteps(tx, row.tenantId, row.id);
  return publishSnapshot(tx, flowKey(row.tenantId, row.id), flowSnapshot(row, steps), {
    actorId: ctx.actorId,
    now: ctx.now,
    note: opts.note,
    requireChange: opts.requireChange ?? false,
    status: row.status,
  });
}

export async function getFlow(ctx: ServiceCtx, id: string): Promise<FlowRecord> {
  const row = await findFlow(ctx.db, ctx.tenantId, id);
  if (!row) throw flowMissing();
  return withSteps(ctx.db, row);
}

// ---- create and update -----------------------------------------------------------------------

/** Replaces nothing: inserts `steps` in array order (0..n-1) for a flow that has none. */
const insertInlineSteps = (tx: Executor, ctx: ServiceCtx, flowId: string, steps: InlineStep[]) =>
  insertSteps(
    tx,
    steps.map((s, i) => stepValues(ctx, flowId, i, s)),
  );

/** Whether `steps` (sent inline) are the stored ones: same fields in the same order. */
const sameSteps = (steps: InlineStep[], stored: StepRow[]) =>
  steps.length === stored.length && steps.every((s, i) => sameJson(stepFields(s), stepFields(stored[i]!)));

/** A flow cannot go live once its expiry has passed (it would be archived by the scheduler at once). */
function assertNotExpired(expiresAt: Date | null, now: Date) {
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw validationError([
      { path: 'expiresAt', message: 'expiresAt has passed; move it forward to publish' },
    ]);
  }
}

export async function createFlow(ctx: ServiceCtx, input: CreateFlowInput): Promise<FlowRecord> {
  assertScheduleWindow(input.scheduledAt ?? null, input.expiresAt ?? null);
  return ctx.db.transaction(async (tx) => {
    await assertPlanAllows(tx, ctx.tenantId, 'flows');
    if (input.audienceId) await assertAudienceUsable(tx, ctx.tenantId, input.audienceId, 'audienceId');
    const row = await insertFlow(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      siteId: input.siteId,
      name: input.name,
      description: input.description ?? null,
      template: input.template,
      status: 'DRAFT',
      audienceId: input.audienceId ?? null,
      settings: input.settings ?? {},
      trigger: input.trigger ?? null,
      scheduledAt: input.scheduledAt ?? null,
      expiresAt: input.expiresAt ?? null,
      priority: input.priority ?? 0,
      bypassCaps: input.bypassCaps ?? false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    });
    await insertInlineSteps(tx, ctx, row.id, input.steps ?? []);
    await audit(ctx, tx, {
      action: 'FLOW_CREATED',
      entityType: ENTITY,
      entityId: row.id,
      metadata: { name: row.name, template: row.template, steps: input.steps?.length ?? 0 },
    });
    return withSteps(tx, row);
  });
}

const UPDATABLE = [
  'name',
  'description',
  'siteId',
  'template',
  'settings',
  'trigger',
  'audienceId',
  'scheduledAt',
  'expiresAt',
  'priority',
  'bypassCaps',
] as const;

/**
 * Any subset of the create fields; `steps` replaces the list (new ids, array order); `status`
 * only as the table allows (restore by update, or the status the flow already has). Only the
 * fields whose value differs are written and audited; steps are the same when each one's type,
 * targetSelector, content and settings equal the stored step's, in order. A PATCH that changes
 * nothing answers the flow as it is: no write, no audit row, updatedAt unchanged.
 */
export async function updateFlow(ctx: ServiceCtx, id: string, input: UpdateFlowInput): Promise<FlowRecord> {
  return ctx.db.transaction(async (tx) => {
    const flow = await findFlow(tx, ctx.tenantId, id, { lock: true });
    if (!flow) throw flowMissing();

    let status = flow.status;
    if (input.status !== undefined) {
      status = nextFlowStatus(flow, `set-status-${input.status}` as FlowAction, ctx.now);
    }
    const set: Partial<NewFlowRow> = {};
    const changed: string[] = [];
    for (const key of UPDATABLE) {
      if (input[key] !== undefined && !sameJson(input[key], flow[key])) {
        (set as Record<string, unknown>)[key] = input[key];
        changed.push(key);
      }
    }
    const storedSteps = await loadSteps(tx, ctx.tenantId, flow.id);
    const newSteps = input.steps !== undefined && !sameSteps(input.steps, storedSteps) ? input.steps : null;
    if (newSteps) changed.push('steps');
    if (status !== flow.status) changed.push('status');
    if (changed.length === 0) return versionedRecord(tx, flow, storedSteps);

    if (input.audienceId) await assertAudienceUsable(tx, ctx.tenantId, input.audienceId, 'audienceId');
    const next = { ...flow, ...set } as FlowRow;
    if ('scheduledAt' in set || 'expiresAt' in set) assertScheduleWindow(next.scheduledAt, next.expiresAt);
    const publishing = status === 'PUBLISHED' && flow.status !== 'PUBLISHED';
    if (publishing) assertNotExpired(next.expiresAt, ctx.now);
    if (flow.status === 'ARCHIVED' && status !== 'ARCHIVED')
      await assertPlanAllows(tx, ctx.tenantId, 'flows');

    const row = (await updateFlowRow(tx, ctx.tenantId, flow.id, {
      ...set,
      ...(status !== flow.status ? stateColumns(flow.status, status, ctx.now) : {}),
      updatedAt: ctx.now,
    }))!;

    if (newSteps) {
      await deleteStepsOf(tx, ctx.tenantId, flow.id);
      await insertInlineSteps(tx, ctx, flow.id, newSteps);
    }
    const taken = publishing ? await takeFlowVersion(tx, ctx, row) : null;

    await audit(ctx, tx, {
      action: 'FLOW_UPDATED',
      entityType: ENTITY,
      entityId: flow.id,
      metadata: {
        changed,
        ...(status !== flow.status ? { from: flow.status, to: status } : {}),
      },
    });
    if (publishing) {
      await audit(ctx, tx, {
        action: 'FLOW_PUBLISHED',
        entityType: ENTITY,
        entityId: flow.id,
        metadata: { from: flow.status, to: status, via: 'update', version: taken!.version },
      });
      await emitFlowPublished(tx, ctx, row);
    }
    return newSteps ? withSteps(tx, row) : versionedRecord(tx, row, storedSteps);
  });
}

/** The `flow.published` webhook event, in the transaction that published the flow. */
const emitFlowPublished = (tx: Executor, ctx: ServiceCtx, flow: FlowRow) =>
  emitWebhookEvents(
    tx,
    [
      {
        tenantId: ctx.tenantId,
        type: 'flow.published',
        data: {
          flowId: flow.id,
          name: flow.name,
          publishedAt: ctx.now.toISOString(),
          publishedBy: ctx.actorId,
        },
      },
    ],
    { now: ctx.now },
  );

// ---- lifecycle -------------------------------------------------------------------------------

interface TransitionResult {
  flow: FlowRecord;
  disabledDependents: Referrer[];
}

/**
 * Runs one lifecycle action under a row lock: the table decides the next state (409 otherwise);
 * a transition to the state the flow is already in (archiving an archived flow) changes nothing.
 */
async function transition(
  ctx: ServiceCtx,
  id: string,
  action: Extract<FlowAction, 'publish' | 'archive' | 'delete' | 'restore'>,
  disable?: (tx: Transaction) => Promise<Referrer[]>,
  note?: string,
): Promise<TransitionResult> {
  return ctx.db.transaction(async (tx) => {
    const flow = await findFlow(tx, ctx.tenantId, id, { lock: true });
    if (!flow) throw flowMissing();
    if (action === 'publish' && flow.status === 'PUBLISHED') {
      return { flow: await republish(tx, ctx, flow, note), disabledDependents: [] };
    }
    const to = nextFlowStatus(flow, action, ctx.now);
    if (to === 'PUBLISHED') assertNotExpired(flow.expiresAt, ctx.now);
    // An archived flow does not count towards the plan; bringing it back does.
    if (flow.status === 'ARCHIVED' && to !== 'ARCHIVED') await assertPlanAllows(tx, ctx.tenantId, 'flows');
    // Dependents are disabled even when the flow was already archived: the caller asked for it.
    const disabledDependents = disable ? await disable(tx) : [];
    let row: FlowRow = flow;
    if (to !== flow.status) {
      row = (await updateFlowRow(tx, ctx.tenantId, flow.id, stateColumns(flow.status, to, ctx.now)))!;
      const taken = to === 'PUBLISHED' ? await takeFlowVersion(tx, ctx, row, { note }) : null;
      await audit(ctx, tx, {
        action: FLOW_AUDIT_ACTION[to],
        entityType: ENTITY,
        entityId: flow.id,
        metadata: {
          ...(to === 'DRAFT' ? { changed: ['status'] } : {}),
          from: flow.status,
          to,
          action,
          ...(to === 'SCHEDULED' ? { scheduledAt: flow.scheduledAt?.toISOString() } : {}),
          ...(disable ? { disabledDependents } : {}),
          ...(taken ? { version: taken.version } : {}),
        },
      });
      if (to === 'PUBLISHED') await emitFlowPublished(tx, ctx, row);
    }
    return { flow: await withSteps(tx, row), disabledDependents };
  });
}

/**
 * Publishing a PUBLISHED flow: its working copy becomes the next version (200), or 409
 * INVALID_STATE_TRANSITION when it has no unpublished changes. Under the caller's row lock.
 */
async function republish(
  tx: Transaction,
  ctx: ServiceCtx,
  flow: FlowRow,
  note?: string,
): Promise<FlowRecord> {
  assertNotExpired(flow.expiresAt, ctx.now);
  const taken = await takeFlowVersion(tx, ctx, flow, { requireChange: true, note });
  const row = (await updateFlowRow(tx, ctx.tenantId, flow.id, { publishedAt: ctx.now, updatedAt: ctx.now }))!;
  await audit(ctx, tx, {
    action: 'FLOW_PUBLISHED',
    entityType: ENTITY,
    entityId: flow.id,
    metadata: { from: 'PUBLISHED', to: 'PUBLISHED', action: 'publish', version: taken.version },
  });
  return withSteps(tx, row);
}

export const publishFlow = async (ctx: ServiceCtx, id: string, note?: string) =>
  (await transition(ctx, id, 'publish', undefined, note)).flow;

/** Publishing inside the caller's transaction (a roll back): the flow is locked by the caller. */
export async function publishFlowIn(tx: Transaction, ctx: ServiceCtx, id: string, note?: string) {
  const flow = (await findFlow(tx, ctx.tenantId, id, { lock: true }))!;
  if (flow.status === 'PUBLISHED') {
    const record = await republish(tx, ctx, flow, note);
    return { version: record.version! };
  }
  const to = nextFlowStatus(flow, 'publish', ctx.now);
  if (to === 'PUBLISHED') assertNotExpired(flow.expiresAt, ctx.now);
  if (flow.status === 'ARCHIVED') await assertPlanAllows(tx, ctx.tenantId, 'flows');
  const row = (await updateFlowRow(tx, ctx.tenantId, flow.id, stateColumns(flow.status, to, ctx.now)))!;
  const taken = to === 'PUBLISHED' ? await takeFlowVersion(tx, ctx, row, { note }) : null;
  await audit(ctx, tx, {
    action: FLOW_AUDIT_ACTION[to],
    entityType: ENTITY,
    entityId: flow.id,
    metadata: { from: flow.status, to, action: 'publish', ...(taken ? { version: taken.version } : {}) },
  });
  return { version: taken?.version ?? 0 };
}

/** The working copy becomes `snapshot` (a version restored): fields and steps, step ids kept. */
export async function writeFlowWorkingCopy(tx: Transaction, ctx: ServiceCtx, id: string, snapshot: unknown) {
  const { steps, ...fields } = snapshot as ReturnType<typeof flowSnapshot>;
  const flow = (await findFlow(tx, ctx.tenantId, id, { lock: true }))!;
  const current = await loadSteps(tx, ctx.tenantId, id);
  if (sameJson(flowSnapshot(flow, current), snapshot)) return;
  if (fields.audienceId) await assertAudienceUsable(tx, ctx.tenantId, fields.audienceId, 'audienceId');
  await updateFlowRow(tx, ctx.tenantId, id, {
    name: fields.name,
    description: fields.description,
    siteId: fields.siteId,
    template: fields.template,
    audienceId: fields.audienceId,
    settings: fields.settings,
    trigger: fields.trigger,
    updatedAt: ctx.now,
  });
  // A fingerprint is learned, not versioned: a restored step keeps the one its working step
  // learned for the same selector (issue 40).
  const learned = new Map(current.map((s) => [s.id, s]));
  await deleteStepsOf(tx, ctx.tenantId, id);
  await insertSteps(
    tx,
    steps.map((s, i) => {
      const was = learned.get(s.id);
      const targetFingerprint =
        was && was.targetSelector === (s.targetSelector ?? null) ? was.targetFingerprint : null;
      return { ...stepValues(ctx, id, i, { ...s, targetFingerprint }), id: s.id };
    }),
  );
}
export const archiveFlow = async (ctx: ServiceCtx, id: string) => (await transition(ctx, id, 'archive')).flow;
export const restoreFlow = async (ctx: ServiceCtx, id: string) => (await transition(ctx, id, 'restore')).flow;

/** Soft delete (→ ARCHIVED, steps kept); `disable` switches off dependents in the same transaction. */
export const deleteFlow = (ctx: ServiceCtx, id: string, disable?: (tx: Transaction) => Promise<Referrer[]>) =>
  transition(ctx, id, 'delete', disable);

/** For records that point at a flow (task-list COMPLETE_FLOW, experiment variants): 400 at `path` unless it is a flow of the tenant. */
export async function assertFlowUsable(exec: Executor, tenantId: string, flowId: string, path = 'flowId') {
  await assertReference(flowId, path, 'Flow', (id) => flowExists(exec, tenantId, id));
}

/** The version routes of flows (`/api/flows/:id/versions…`). */
export const flowVersions: VersionedKind = {
  itemType: 'flow',
  path: '/api/flows/:id',
  params: idParams,
  tags: ['flows'],
  entityType: ENTITY,
  auditPrefix: 'FLOW',
  async find(exec, ctx, params, opts) {
    const row = await findFlow(exec, ctx.tenantId, params.id, opts);
    if (!row) throw flowMissing();
    return row.id;
  },
  restore: writeFlowWorkingCopy,
  publish: publishFlowIn,
  async read(exec, ctx, id) {
    return withSteps(exec, (await findFlow(exec, ctx.tenantId, id))!);
  },
  response: flowResponse,
};
