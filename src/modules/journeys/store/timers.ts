import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { journeyEnrollments, journeyTimers } from '../../../db/schema/index.js';
import { bare, columnList, fixedStatement, runPrepared, runStatement } from '../../../db/statements.js';
import { linesFrom, textRows } from '../../../db/text-rows.js';
import type { EnrollmentState } from '../engine/machine.js';

/**
 * The journey timers (`journey_timers`): one row per enrollment and kind (its node's wait, its
 * goal deadline). The timer job's statements are raw and rendered once: a claim with
 * `FOR UPDATE … SKIP LOCKED`, and set-based writes of any number of rows as one text parameter
 * (db/text-rows.ts). Figures: bench/README.md ("Journeys", timers), bench/RESULTS.md
 * ("Stores of delivery, experiments and journeys").
 */

const t = journeyTimers;
const e = journeyEnrollments;

export type TimerRow = typeof journeyTimers.$inferSelect;
/** A timer as the runtime writes it: `dueAt` in epoch ms. */
export type TimerWrite = Omit<TimerRow, 'dueAt'> & { dueAt: number };

/** A claimed timer with its enrollment (locked with it). */
export interface ClaimedTimer extends Pick<TimerRow, 'enrollmentId' | 'kind' | 'nodeId' | 'visit'> {
  tenantId: string;
  journeyId: string;
  journeyVersion: number | null;
  endUserId: string;
  /** Epoch ms. */
  enrolledAt: number;
  state: EnrollmentState;
}

// Ordered by the due_at index (the earliest first, no sort of every due row).
const claimStatement = fixedStatement<ClaimedTimer, { now: string; limit: number }>(
  sql`select ${t.enrollmentId} as "enrollmentId", ${t.kind} as "kind", ${t.nodeId} as "nodeId", ${t.visit} as "visit",
      ${e.tenantId} as "tenantId", ${e.journeyId} as "journeyId", ${e.journeyVersion} as "journeyVersion",
      ${e.endUserId} as "endUserId", (extract(epoch from ${e.enrolledAt}) * 1000)::float8 as "enrolledAt", ${e.state} as "state"
    from ${t} join ${e} on ${e.id} = ${t.enrollmentId}
    where ${t.dueAt} <= ${sql.placeholder('now')}
    order by ${t.dueAt} limit ${sql.placeholder('limit')}
    for update of ${t}, ${e} skip locked`,
);

/**
 * Claims up to `limit` timers due at `now` together with their enrollments, across tenants: an
 * instance never waits for a row another holds, and never takes a timer another has claimed.
 */
export const claimDueTimers = (tx: Executor, now: Date, limit: number) =>
  runPrepared(tx, claimStatement, { now: now.toISOString(), limit });

const nextDueStatement = fixedStatement<{ due: Date | string | null }, { until: string }>(
  sql`select min(${t.dueAt}) as due from ${t} where ${t.dueAt} <= ${sql.placeholder('until')}`,
);

/** The earliest due time up to `until` (epoch ms), or null. */
export async function findNextDueTime(exec: Executor, until: Date): Promise<number | null> {
  const [row] = await runPrepared(exec, nextDueStatement, { until: until.toISOString() });
  return row?.due ? new Date(row.due).getTime() : null;
}

const deleteStatement = fixedStatement<never, { rows: string }>(
  sql`delete from ${t} using ${linesFrom(sql.placeholder('rows'), 'd', ['enrollment_id uuid', 'kind text'])}
    where ${t.enrollmentId} = d.enrollment_id and ${t.kind} = d.kind`,
);

/** Deletes these (enrollment, kind) timers. */
export async function deleteTimers(tx: Executor, timers: Pick<TimerRow, 'enrollmentId' | 'kind'>[]) {
  if (timers.length === 0) return;
  await runStatement(tx, deleteStatement, { rows: textRows(timers.map((d) => [d.enrollmentId, d.kind])) });
}

const upsertStatement = fixedStatement<never, { rows: string }>(
  sql`insert into ${t} ${columnList([t.enrollmentId, t.kind, t.tenantId, t.journeyId, t.nodeId, t.visit, t.dueAt])}
    select r.enrollment_id, r.kind, r.tenant_id, r.journey_id, r.node_id, r.visit, to_timestamp(r.due_at / 1000)
    from ${linesFrom(sql.placeholder('rows'), 'r', ['enrollment_id uuid', 'kind text', 'tenant_id uuid', 'journey_id uuid', 'node_id uuid?', 'visit int', 'due_at float8'])}
    on conflict (${bare(t.enrollmentId)}, ${bare(t.kind)}) do update
      set ${bare(t.nodeId)} = excluded.${bare(t.nodeId)}, ${bare(t.visit)} = excluded.${bare(t.visit)},
          ${bare(t.dueAt)} = excluded.${bare(t.dueAt)}`,
);

/** Writes these timers, replacing an enrollment's timer of the same kind. */
export async function upsertTimers(tx: Executor, timers: TimerWrite[]) {
  if (timers.length === 0) return;
  await runStatement(tx, upsertStatement, {
    rows: textRows(
      timers.map((r) => [r.enrollmentId, r.kind, r.tenantId, r.journeyId, r.nodeId, r.visit, r.dueAt]),
    ),
  });
}
