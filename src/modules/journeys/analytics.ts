import { rawQuery } from '../../db/raw.js';
import { percentage } from '../../engine/math.js';
import type { ServiceCtx } from '../../platform/context.js';
import { ENROLLMENT_STATUSES, type EnrollmentStatus } from './engine/machine.js';
import { findJourney, journeyMissing, loadCanvas } from './records.js';

/**
 * `GET /api/journeys/:id/analytics`, in SQL over the node history (the reference is
 * `journeyStats` in test/helpers/journey-stats.ts, and a test holds the two together): per node the
 * entries, exits, enrollments waiting there now, distinct enrollments and how many of them
 * reached the goal (conversion, percent); per status counts; the median time to the goal.
 */
export async function journeyAnalytics(ctx: ServiceCtx, id: string) {
  const journey = await findJourney(ctx.db, ctx.tenantId, id);
  if (!journey) throw journeyMissing();
  const params = [ctx.tenantId, journey.id];
  const [statusRows, nodeRows, medianRows, canvas] = await Promise.all([
    rawQuery<{ status: EnrollmentStatus; n: string }>(
      ctx.db,
      `select status, count(*) as n from journey_enrollments where tenant_id = $1 and journey_id = $2 group by status`,
      params,
    ),
    rawQuery<{ node_id: string; entered: string; exited: string; enrollments: string; goal_reached: string }>(
      ctx.db,
      `select v.node_id, count(*) as entered, count(v.exited_at) as exited,
         count(distinct v.enrollment_id) as enrollments,
         count(distinct v.enrollment_id) filter (where e.status = 'goal_reached' and e.goal_reached_at is not null) as goal_reached
       from journey_node_visits v join journey_enrollments e on e.id = v.enrollment_id
       where v.tenant_id = $1 and v.journey_id = $2 group by v.node_id`,
      params,
    ),
    rawQuery<{ median: number | null }>(
      ctx.db,
      `select percentile_cont(0.5) within group (
           order by extract(epoch from goal_reached_at - enrolled_at) * 1000) as median
       from journey_enrollments
       where tenant_id = $1 and journey_id = $2 and status = 'goal_reached' and goal_reached_at is not null`,
      params,
    ),
    loadCanvas(ctx.db, ctx.tenantId, journey.id),
  ]);
  const statuses = Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, 0])) as Record<
    EnrollmentStatus,
    number
  >;
  for (const r of statusRows) statuses[r.status] = Number(r.n);
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  const byNode = new Map(nodeRows.map((r) => [r.node_id, r]));
  const median = medianRows[0]?.median;
  return {
    journeyId: journey.id,
    enrollments: total,
    statuses,
    conversion: percentage(statuses.goal_reached, total),
    medianTimeToGoalMs: median === null || median === undefined ? null : Number(median),
    nodes: canvas.nodes.map((n) => {
      const r = byNode.get(n.id);
      const entered = Number(r?.entered ?? 0);
      const exited = Number(r?.exited ?? 0);
      const enrollments = Number(r?.enrollments ?? 0);
      const goalReached = Number(r?.goal_reached ?? 0);
      return {
        nodeId: n.id,
        type: n.type,
        entered,
        exited,
        waiting: entered - exited,
        enrollments,
        goalReached,
        conversion: percentage(goalReached, enrollments),
      };
    }),
  };
}
