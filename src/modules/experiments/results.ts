import type { Executor } from '../../db/client.js';
import { recordAudits } from '../../platform/audit.js';
import type { ServiceCtx } from '../../platform/context.js';
import { emitWebhookEvents } from '../webhooks/index.js';
import { analyzeExperiment } from './engine/stats.js';
import { experimentOr404, loadVariants } from './records.js';
import { completeEndedExperimentRows, countAssignmentsByDay, countAssignmentsByVariant } from './store.js';

/**
 * Results, aggregated in SQL over `experiment_assignments_results_idx` (tenant, experiment,
 * variant, assigned_at, converted_at): an index-only scan, whatever the number of assignments,
 * hands JavaScript one row per variant (compute-results) or per variant and pair of days (the
 * daily series), never a row per user.
 */

const DAY_MS = 86_400_000;
/** The longest series served: the last ten years of days. */
const MAX_DAYS = 3660;

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const dayOfInstant = (at: Date | string) => dayOf(new Date(at).getTime());

/**
 * `GET /api/experiments/:id/results`: per variant the totals and a daily cumulative series
 * `{ date, participants, conversions }` (UTC days, participants by assignment day, conversions
 * by conversion day), with every day from the first (start or first assignment) to today while
 * running, else to the day it stopped or completed (or the last day with activity, if later).
 */
export async function experimentResults(ctx: ServiceCtx, id: string) {
  const row = await experimentOr404(ctx.db, ctx.tenantId, id);
  const variants = await loadVariants(ctx.db, ctx.tenantId, row.id);
  const cells = await countAssignmentsByDay(ctx.db, ctx.tenantId, row.id);

  const today = dayOf(ctx.now.getTime());
  let first = row.startDate ? dayOf(row.startDate.getTime()) : Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const joined = new Map<string, Map<number, number>>();
  const converted = new Map<string, Map<number, number>>();
  const bump = (m: Map<string, Map<number, number>>, v: string, day: number, n: number) => {
    let byDay = m.get(v);
    if (!byDay) {
      byDay = new Map();
      m.set(v, byDay);
    }
    byDay.set(day, (byDay.get(day) ?? 0) + n);
  };
  for (const c of cells) {
    const a = dayOfInstant(c.assigned);
    const n = c.n;
    bump(joined, c.variantId, a, n);
    first = Math.min(first, a);
    last = Math.max(last, a);
    if (c.converted !== null) {
      const d = dayOfInstant(c.converted);
      bump(converted, c.variantId, d, n);
      last = Math.max(last, d);
    }
  }
  // While running the series reaches today; afterwards the day it stopped (updatedAt of the
  // move out of running), or later activity (conversions reported late).
  const endDay = row.status === 'running' ? today : Math.min(today, dayOf(row.updatedAt.getTime()));
  if (Number.isFinite(first)) last = Math.max(last, endDay, first);
  const days: number[] = [];
  if (Number.isFinite(first) && Number.isFinite(last)) {
    for (let d = Math.max(first, last - MAX_DAYS + 1); d <= last; d++) days.push(d);
  }

  return {
    experimentId: row.id,
    name: row.name,
    status: row.status,
    startDate: row.startDate,
    endDate: row.endDate,
    variants: variants.map((v) => {
      const j = joined.get(v.id) ?? new Map<number, number>();
      const x = converted.get(v.id) ?? new Map<number, number>();
      let participants = 0;
      let conversions = 0;
      // Days before the series (beyond MAX_DAYS) still count in the cumulative totals.
      for (const [d, n] of j) if (d < (days[0] ?? Number.POSITIVE_INFINITY)) participants += n;
      for (const [d, n] of x) if (d < (days[0] ?? Number.POSITIVE_INFINITY)) conversions += n;
      const results = days.map((d) => {
        participants += j.get(d) ?? 0;
        conversions += x.get(d) ?? 0;
        return { date: isoDay(d), participants, conversions };
      });
      let totalP = 0;
      let totalX = 0;
      for (const n of j.values()) totalP += n;
      for (const n of x.values()) totalX += n;
      return {
        variantId: v.id,
        variantName: v.name,
        splitPercentage: v.splitBasisPoints / 100,
        participants: totalP,
        conversions: totalX,
        conversionRate: totalP > 0 ? totalX / totalP : 0,
        results,
      };
    }),
  };
}

/**
 * `POST /api/experiments/:id/compute-results`: participants and conversions per variant (one
 * grouped index-only scan) fed to the pure statistics (engine/stats.ts).
 */
export async function computeExperimentResults(ctx: ServiceCtx, id: string) {
  const row = await experimentOr404(ctx.db, ctx.tenantId, id);
  const variants = await loadVariants(ctx.db, ctx.tenantId, row.id);
  const counts = await countAssignmentsByVariant(ctx.db, ctx.tenantId, row.id);
  const byVariant = new Map(counts.map((c) => [c.variantId, c]));
  const analysis = analyzeExperiment(
    variants.map((v) => ({
      id: v.id,
      name: v.name,
      splitPercentage: v.splitBasisPoints / 100,
      participants: byVariant.get(v.id)?.n ?? 0,
      conversions: byVariant.get(v.id)?.x ?? 0,
    })),
  );
  return { experimentId: row.id, status: row.status, computedAt: ctx.now, ...analysis };
}

/**
 * The completion job's move (DECISIONS §6): running or stopped experiments whose `endDate` has
 * passed → completed, one conditional UPDATE (any number of instances: each moves once),
 * audited with actorId null and `{ automatic: true }`.
 */
export async function completeEndedExperiments(exec: Executor, now: Date): Promise<number> {
  const done = await completeEndedExperimentRows(exec, now);
  await recordAudits(
    exec,
    done.map((e) => ({
      tenantId: e.tenantId,
      action: 'EXPERIMENT_COMPLETED',
      entityType: 'experiment',
      entityId: e.id,
      metadata: { from: e.from, to: 'completed', automatic: true },
    })),
  );
  await emitWebhookEvents(
    exec,
    done.map((e) => ({
      tenantId: e.tenantId,
      type: 'experiment.completed' as const,
      data: { experimentId: e.id, name: e.name, from: e.from, completedAt: now.toISOString() },
    })),
    { now },
  );
  return done.length;
}
