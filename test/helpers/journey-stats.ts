import { percentage } from '../../src/engine/math.js';
import { ENROLLMENT_STATUSES, type EnrollmentStatus } from '../../src/modules/journeys/engine/machine.js';

/**
 * Journey analytics from enrollments and node history, as plain functions: the reference the
 * analytics route (or its SQL) must agree with. Times are epoch milliseconds.
 */

/** The median (mean of the middle two for an even count); null for no values. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface EnrollmentRow {
  id: string;
  status: EnrollmentStatus;
  enrolledAt: number;
  /** When the goal was met (goal input, goal event or GOAL_CHECK); null if never. */
  goalReachedAt: number | null;
}

export interface NodeVisitRow {
  enrollmentId: string;
  nodeId: string;
  exitedAt: number | null;
}

export interface NodeStats {
  /** Entries of the node (an enrollment looping through it counts each time). */
  entered: number;
  exited: number;
  /** Entries not yet left: enrollments waiting at the node now. */
  waiting: number;
  /** Distinct enrollments that entered the node, and how many of them reached the goal. */
  enrollments: number;
  goalReached: number;
  /** goalReached / enrollments in percent, one decimal. */
  conversion: number;
}

export interface JourneyStats {
  statuses: Record<EnrollmentStatus, number>;
  nodes: Record<string, NodeStats>;
  /** Median of goalReachedAt − enrolledAt over enrollments that reached the goal; null if none. */
  medianTimeToGoalMs: number | null;
}

export function journeyStats(
  enrollments: readonly EnrollmentRow[],
  visits: readonly NodeVisitRow[],
): JourneyStats {
  const statuses = Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, 0])) as Record<
    EnrollmentStatus,
    number
  >;
  const reached = new Set<string>();
  const timesToGoal: number[] = [];
  for (const e of enrollments) {
    statuses[e.status]++;
    if (e.status === 'goal_reached' && e.goalReachedAt !== null) {
      reached.add(e.id);
      timesToGoal.push(e.goalReachedAt - e.enrolledAt);
    }
  }
  const perNode = new Map<string, { entered: number; exited: number; who: Set<string> }>();
  for (const v of visits) {
    let n = perNode.get(v.nodeId);
    if (!n) {
      n = { entered: 0, exited: 0, who: new Set() };
      perNode.set(v.nodeId, n);
    }
    n.entered++;
    if (v.exitedAt !== null) n.exited++;
    n.who.add(v.enrollmentId);
  }
  const nodes: Record<string, NodeStats> = {};
  for (const [nodeId, n] of perNode) {
    let goalReached = 0;
    for (const id of n.who) if (reached.has(id)) goalReached++;
    nodes[nodeId] = {
      entered: n.entered,
      exited: n.exited,
      waiting: n.entered - n.exited,
      enrollments: n.who.size,
      goalReached,
      conversion: percentage(goalReached, n.who.size),
    };
  }
  return { statuses, nodes, medianTimeToGoalMs: median(timesToGoal) };
}
