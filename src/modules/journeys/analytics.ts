import { percentage } from '../../engine/math.js';
import type { ServiceCtx } from '../../platform/context.js';
import { ENROLLMENT_STATUSES, type EnrollmentStatus } from './engine/machine.js';
import { findJourney, journeyMissing, loadCanvas } from './records.js';
import { countEnrollmentsByStatus, findMedianTimeToGoal } from './store/enrollments.js';
import { countVisitsByNode } from './store/visits.js';

/**
 * `GET /api/journeys/:id/analytics`, in SQL over the node history (the reference is
 * `journeyStats` in test/helpers/journey-stats.ts, and a test holds the two together): per node the
 * entries, exits, enrollments waiting there now, distinct enrollments and how many of them
 * reached the goal (conversion, percent); per status counts; the median time to the goal.
 */
export async function journeyAnalytics(ctx: ServiceCtx, id: string) {
  const journey = await findJourney(ctx.db, ctx.tenantId, id);
  if (!journey) throw journeyMissing();
  const [statusRows, nodeRows, median, canvas] = await Promise.all([
    countEnrollmentsByStatus(ctx.db, ctx.tenantId, journey.id),
    countVisitsByNode(ctx.db, ctx.tenantId, journey.id),
    findMedianTimeToGoal(ctx.db, ctx.tenantId, journey.id),
    loadCanvas(ctx.db, ctx.tenantId, journey.id),
  ]);
  const statuses = Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, 0])) as Record<
    EnrollmentStatus,
    number
  >;
  for (const r of statusRows) statuses[r.status] = Number(r.n);
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  const byNode = new Map(nodeRows.map((r) => [r.nodeId, r]));
  return {
    journeyId: journey.id,
    enrollments: total,
    statuses,
    conversion: percentage(statuses.goal_reached, total),
    medianTimeToGoalMs: median,
    nodes: canvas.nodes.map((n) => {
      const r = byNode.get(n.id);
      const entered = Number(r?.entered ?? 0);
      const exited = Number(r?.exited ?? 0);
      const enrollments = Number(r?.enrollments ?? 0);
      const goalReached = Number(r?.goalReached ?? 0);
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
