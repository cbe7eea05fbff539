import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, contentNotFound } from '../../platform/errors.js';
import { CONTENT_DEFS, findContentTargets, updateContent } from '../content/index.js';
import { findFlow, findStepTargets, loadSteps, updateStep } from '../flows/index.js';
import {
  attentionOf,
  type Counts,
  type HealthStatus,
  healthStatusOf,
  hourOf,
  isTargetBroken,
  noCounts,
} from './engine/health.js';
import { copyFingerprints, type HealthRow, healthRows } from './store.js';

/**
 * Target health (issue 40): per target, the counts of its current selector's lookups over the
 * last 7 days (hour buckets from the hour 7 days ago) and the last hour (the current and the
 * previous clock hour), the selector suggested by the latest healed lookup, when it was last
 * looked up; the "needs attention" list; applying a suggested selector.
 */

const HOUR_MS = 3_600_000;
export const HEALTH_DAYS = 7;

export function windowsAt(now: Date): { weekFrom: Date; hourFrom: Date } {
  return {
    weekFrom: hourOf(new Date(now.getTime() - HEALTH_DAYS * 24 * HOUR_MS)),
    hourFrom: new Date(hourOf(now).getTime() - HOUR_MS),
  };
}

export interface TargetHealth extends Counts {
  stepId: string | null;
  order: number;
  targetSelector: string;
  suggestedSelector: string | null;
  lastSeenAt: Date | null;
  status: HealthStatus;
  lastHour: Counts;
  /** Most lookups failed in the last hour (`isTargetBroken`). */
  broken: boolean;
}

function healthOf(
  target: { stepId: string | null; order: number; targetSelector: string },
  row: HealthRow | undefined,
): TargetHealth {
  const week = row?.week ?? noCounts();
  const lastHour = row?.lastHour ?? noCounts();
  const suggested = row?.suggestedSelector ?? null;
  return {
    ...target,
    ...week,
    suggestedSelector: suggested && suggested !== target.targetSelector ? suggested : null,
    lastSeenAt: row?.lastSeenAt ?? null,
    status: healthStatusOf(week),
    lastHour,
    broken: isTargetBroken(lastHour),
  };
}

const rowFor = (rows: HealthRow[], targetId: string, selector: string) =>
  rows.find((r) => r.targetId === targetId && r.selector === selector);

/** The health of every step of the flow that has a target, in order; 404 when the flow is not the tenant's. */
export async function flowTargetHealth(ctx: ServiceCtx, flowId: string): Promise<TargetHealth[]> {
  const flow = await findFlow(ctx.db, ctx.tenantId, flowId);
  if (!flow) throw contentNotFound('Flow');
  const steps = (await loadSteps(ctx.db, ctx.tenantId, flow.id)).filter((s) => s.targetSelector);
  if (steps.length === 0) return [];
  const rows = await healthRows(ctx.db, ctx.tenantId, {
    ...windowsAt(ctx.now),
    targetIds: steps.map((s) => s.id),
  });
  return steps.map((s) =>
    healthOf(
      { stepId: s.id, order: s.order, targetSelector: s.targetSelector! },
      rowFor(rows, s.id, s.targetSelector!),
    ),
  );
}

const TARGETED_TYPES = new Set(['tooltips', 'beacons']);

async function contentTarget(ctx: ServiceCtx, type: string, id: string) {
  if (!TARGETED_TYPES.has(type)) throw contentNotFound();
  const [item] = await findContentTargets(ctx.db, [id], ctx.tenantId);
  if (!item || item.type !== type) throw contentNotFound(CONTENT_DEFS[type as 'tooltips'].label);
  return item;
}

/** The health of a tooltip or beacon (one entry, `stepId` null, `order` 0); 404 for another type or tenant. */
export async function contentTargetHealth(
  ctx: ServiceCtx,
  type: string,
  id: string,
): Promise<TargetHealth[]> {
  const item = await contentTarget(ctx, type, id);
  if (!item.targetSelector) return [];
  const rows = await healthRows(ctx.db, ctx.tenantId, { ...windowsAt(ctx.now), targetIds: [item.id] });
  return [
    healthOf(
      { stepId: null, order: 0, targetSelector: item.targetSelector },
      rowFor(rows, item.id, item.targetSelector),
    ),
  ];
}

export interface AttentionEntry extends TargetHealth {
  itemKind: 'flow' | 'content';
  itemId: string;
  itemName: string;
  contentType: string | null;
  /** Broken in the last hour, or over 7 days. */
  attention: 'hour' | 'week';
}

/**
 * The tenant's targets whose current selector's lookups mostly fail (`attentionOf`): broken in the
 * last hour first, then over 7 days; most failures first.
 */
export async function needsAttention(ctx: ServiceCtx): Promise<AttentionEntry[]> {
  const rows = await healthRows(ctx.db, ctx.tenantId, windowsAt(ctx.now));
  const failing = rows.filter((r) => attentionOf(r.lastHour, r.week));
  if (failing.length === 0) return [];
  const steps = new Map(
    (
      await findStepTargets(
        ctx.db,
        failing.filter((r) => r.itemKind === 'flow').map((r) => r.targetId),
      )
    )
      .filter((s) => s.tenantId === ctx.tenantId)
      .map((s) => [s.id, s]),
  );
  const items = new Map(
    (
      await findContentTargets(
        ctx.db,
        failing.filter((r) => r.itemKind === 'content').map((r) => r.targetId),
        ctx.tenantId,
      )
    ).map((c) => [c.id, c]),
  );
  const out: AttentionEntry[] = [];
  for (const r of failing) {
    const attention = attentionOf(r.lastHour, r.week)!;
    const step = r.itemKind === 'flow' ? steps.get(r.targetId) : undefined;
    const item = r.itemKind === 'content' ? items.get(r.targetId) : undefined;
    const selector = step?.targetSelector ?? item?.targetSelector;
    if (selector !== r.selector) continue; // deleted, or its selector changed since
    out.push({
      ...healthOf({ stepId: step ? step.id : null, order: step?.order ?? 0, targetSelector: r.selector }, r),
      itemKind: r.itemKind,
      itemId: step ? step.flowId : item!.id,
      itemName: step ? step.flowName : item!.name,
      contentType: item ? item.type : null,
      attention,
    });
  }
  const rank = (e: AttentionEntry) => (e.attention === 'hour' ? 0 : 1);
  return out.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      b.missing + b.ambiguous - (a.missing + a.ambiguous) ||
      a.itemName.localeCompare(b.itemName),
  );
}

function suggestionOf(health: TargetHealth | undefined, expected: string | undefined): string {
  const suggested = health?.suggestedSelector;
  if (!suggested) {
    throw new AppError('INVALID_STATE_TRANSITION', 'There is no suggested selector for this target');
  }
  if (expected !== undefined && expected !== suggested) {
    throw new AppError('VERSION_CONFLICT', 'The suggested selector changed: reload the target health');
  }
  return suggested;
}

async function auditApplied(
  ctx: ServiceCtx,
  entity: { type: string; id: string },
  targetId: string,
  from: string,
  to: string,
) {
  await ctx.db.transaction(async (tx) => {
    await copyFingerprints(tx, ctx.tenantId, targetId, from, to);
    await audit(ctx, tx, {
      action: 'TARGET_SELECTOR_APPLIED',
      entityType: entity.type,
      entityId: entity.id,
      metadata: { targetId, from, to },
    });
  });
}

/**
 * Sets a step's targetSelector to its suggested selector (the element the SDK healed to), keeping
 * its fingerprint (the same element) and the fingerprints reported for the old selector; audited
 * (`TARGET_SELECTOR_APPLIED`, beside the flow's own `FLOW_UPDATED`). `expected`: the suggestion
 * the author saw (409 VERSION_CONFLICT when it changed since); no suggestion: 409.
 */
export async function applyStepSuggestion(
  ctx: ServiceCtx,
  flowId: string,
  stepId: string,
  expected?: string,
) {
  const health = (await flowTargetHealth(ctx, flowId)).find((h) => h.stepId === stepId);
  if (!health) {
    const [step] = await findStepTargets(ctx.db, [stepId]);
    if (!step || step.tenantId !== ctx.tenantId || step.flowId !== flowId) throw contentNotFound('Flow step');
  }
  const to = suggestionOf(health, expected);
  const [before] = await findStepTargets(ctx.db, [stepId]);
  const step = await updateStep(ctx, flowId, stepId, {
    targetSelector: to,
    targetFingerprint: (before?.targetFingerprint ?? null) as never,
  });
  await auditApplied(ctx, { type: 'flow', id: flowId }, stepId, health!.targetSelector, to);
  return step;
}

/** The same for a tooltip or beacon. */
export async function applyContentSuggestion(ctx: ServiceCtx, type: string, id: string, expected?: string) {
  const item = await contentTarget(ctx, type, id);
  const [health] = await contentTargetHealth(ctx, type, id);
  const to = suggestionOf(health, expected);
  const record = await updateContent(ctx, CONTENT_DEFS[type as 'tooltips'], id, {
    targetSelector: to,
    targetFingerprint: item.targetFingerprint,
  });
  await auditApplied(ctx, { type, id }, id, health!.targetSelector, to);
  return record;
}
