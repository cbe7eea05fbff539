import { and, count, countDistinct, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { journeyEnrollments, journeyNodeVisits } from '../../../db/schema/index.js';
import { bare, columnList, fixedStatement, runStatement } from '../../../db/statements.js';
import { linesFrom, quoted, textRows } from '../../../db/text-rows.js';

/**
 * The node history (`journey_node_visits`): one row per (enrollment, node, visit), entered and
 * exited. Written set-based with the steps that caused it (raw, rendered once: any number of rows
 * as one text parameter, db/text-rows.ts; bench/RESULTS.md, "Stores of delivery, experiments and journeys"); read by the analytics.
 */

const v = journeyNodeVisits;
const e = journeyEnrollments;

/** A visit as the runtime writes it: times in epoch ms. */
export type VisitWrite = Pick<
  typeof journeyNodeVisits.$inferSelect,
  'enrollmentId' | 'nodeId' | 'visit' | 'tenantId' | 'journeyId' | 'edgeLabel'
> & {
  enteredAt: number | null;
  exitedAt: number | null;
};

// Its primary key makes a replayed step fail rather than enter a visit twice.
const insertStatement = fixedStatement<never, { rows: string }>(
  sql`insert into ${v} ${columnList([v.enrollmentId, v.nodeId, v.visit, v.tenantId, v.journeyId, v.enteredAt, v.exitedAt, v.edgeLabel])}
    select r.enrollment_id, r.node_id, r.visit, r.tenant_id, r.journey_id, to_timestamp(r.entered_at / 1000),
      to_timestamp(r.exited_at / 1000), r.label
    from ${linesFrom(sql.placeholder('rows'), 'r', ['enrollment_id uuid', 'node_id uuid', 'visit int', 'tenant_id uuid', 'journey_id uuid', 'entered_at float8', 'exited_at float8?', 'label quoted?'])}`,
);

/** Inserts entered visits (`enteredAt` set; exited too when the step left the node at once). */
export async function insertVisits(tx: Executor, visits: VisitWrite[]) {
  if (visits.length === 0) return;
  await runStatement(tx, insertStatement, {
    rows: textRows(
      visits.map((r) => [
        r.enrollmentId,
        r.nodeId,
        r.visit,
        r.tenantId,
        r.journeyId,
        r.enteredAt,
        r.exitedAt,
        quoted(r.edgeLabel),
      ]),
    ),
  });
}

const closeStatement = fixedStatement<never, { rows: string }>(
  sql`update ${v} set ${bare(v.exitedAt)} = to_timestamp(r.exited_at / 1000), ${bare(v.edgeLabel)} = r.label
    from ${linesFrom(sql.placeholder('rows'), 'r', ['enrollment_id uuid', 'node_id uuid', 'visit int', 'exited_at float8', 'label quoted?'])}
    where ${v.enrollmentId} = r.enrollment_id and ${v.nodeId} = r.node_id and ${v.visit} = r.visit
      and ${v.exitedAt} is null`,
);

/** Closes visits entered by an earlier step (`exitedAt` and the edge taken). */
export async function closeVisits(tx: Executor, visits: VisitWrite[]) {
  if (visits.length === 0) return;
  await runStatement(tx, closeStatement, {
    rows: textRows(visits.map((r) => [r.enrollmentId, r.nodeId, r.visit, r.exitedAt, quoted(r.edgeLabel)])),
  });
}

/**
 * Per node of a journey: entries, exits, distinct enrollments and how many of those reached the
 * goal (the reference is `journeyStats` in test/helpers/journey-stats.ts).
 */
export async function countVisitsByNode(exec: Executor, tenantId: string, journeyId: string) {
  return exec
    .select({
      nodeId: v.nodeId,
      entered: count(),
      exited: count(v.exitedAt),
      enrollments: countDistinct(v.enrollmentId),
      goalReached: sql<number>`count(distinct ${v.enrollmentId})
        filter (where ${e.status} = 'goal_reached' and ${e.goalReachedAt} is not null)`.mapWith(Number),
    })
    .from(v)
    .innerJoin(e, eq(e.id, v.enrollmentId))
    .where(and(eq(v.tenantId, tenantId), eq(v.journeyId, journeyId)))
    .groupBy(v.nodeId);
}
