import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { jsonValue, sqlRows } from '../../../db/raw.js';
import {
  endUsers,
  journeyEnrollments,
  journeyNodeVisits,
  journeys,
  journeyTimers,
} from '../../../db/schema/index.js';
import { bare, columnList, fixedStatement, runPrepared, runStatement } from '../../../db/statements.js';
import { linesFrom, textRows } from '../../../db/text-rows.js';
import { listPage, type PageRequest } from '../../../platform/pagination.js';
import type { UserStateQuery } from '../../delivery/index.js';
import type { EnrollmentState, EnrollmentStatus } from '../engine/machine.js';
import { isAudienceOnly } from './journeys.js';

/**
 * Enrollments (`journey_enrollments`): the durable machine's rows. The runtime's statements
 * (the event effect, the timer job, the session's first exposure) are raw and rendered once:
 * set-based writes of any number of rows as one text parameter (db/text-rows.ts), `unnest`
 * joins, advisory locks (bench/README.md, "Journeys"; bench/RESULTS.md, "Stores of delivery, experiments and journeys").
 */

const e = journeyEnrollments;

export type EnrollmentRow = typeof journeyEnrollments.$inferSelect;

/** A stored enrollment read to be stepped (locked by the caller's statement). */
export interface StoredEnrollment
  extends Pick<EnrollmentRow, 'id' | 'tenantId' | 'journeyId' | 'endUserId' | 'journeyVersion'> {
  /** A timestamp, or epoch ms. */
  enrolledAt: Date | string | number;
  state: EnrollmentState;
}

// ---- the machine's writes -----------------------------------------------------------------------

/** An enrollment as the runtime writes it: times in epoch ms. */
export interface EnrollmentWrite
  extends Pick<
    EnrollmentRow,
    'id' | 'tenantId' | 'journeyId' | 'journeyVersion' | 'endUserId' | 'status' | 'currentNodeId'
  > {
  enrolledAt: number;
  endedAt: number | null;
  goalReachedAt: number | null;
  state: EnrollmentState;
}

const insertStatement = fixedStatement<{ id: string }, { rows: string }>(
  sql`insert into ${e} ${columnList([e.id, e.tenantId, e.journeyId, e.journeyVersion, e.endUserId, e.status, e.currentNodeId, e.state, e.enrolledAt, e.endedAt, e.goalReachedAt, e.updatedAt])}
    select r.id, r.tenant_id, r.journey_id, r.journey_version, r.end_user_id, r.status, r.current_node_id, r.state,
      to_timestamp(r.enrolled_at / 1000), to_timestamp(r.ended_at / 1000), to_timestamp(r.goal_reached_at / 1000),
      to_timestamp(r.enrolled_at / 1000)
    from ${linesFrom(sql.placeholder('rows'), 'r', ['id uuid', 'tenant_id uuid', 'journey_id uuid', 'journey_version int4?', 'end_user_id uuid', 'status text', 'current_node_id uuid?', 'enrolled_at float8', 'ended_at float8?', 'goal_reached_at float8?', 'state json'])}
    on conflict do nothing returning ${e.id} as "id"`,
);

/**
 * Inserts new enrollments; one that conflicts (another in-progress enrollment of the user in the
 * journey committed first) is skipped. Answers the ids inserted.
 */
export async function insertEnrollments(tx: Executor, rows: EnrollmentWrite[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await runStatement(tx, insertStatement, {
    rows: textRows(
      rows.map((r) => [
        r.id,
        r.tenantId,
        r.journeyId,
        r.journeyVersion,
        r.endUserId,
        r.status,
        r.currentNodeId,
        r.enrolledAt,
        r.endedAt,
        r.goalReachedAt,
        JSON.stringify(r.state),
      ]),
    ),
  });
  return new Set(inserted.map((r) => r.id));
}

const updateStatement = fixedStatement<never, { rows: string }>(
  sql`update ${e} set ${bare(e.status)} = r.status, ${bare(e.currentNodeId)} = r.current_node_id, ${bare(e.state)} = r.state,
      ${bare(e.endedAt)} = to_timestamp(r.ended_at / 1000), ${bare(e.goalReachedAt)} = to_timestamp(r.goal_reached_at / 1000),
      ${bare(e.updatedAt)} = clock_timestamp()
    from ${linesFrom(sql.placeholder('rows'), 'r', ['id uuid', 'status text', 'current_node_id uuid?', 'ended_at float8?', 'goal_reached_at float8?', 'state json'])}
    where ${e.id} = r.id`,
);

/** Writes stored enrollments' new state (and the columns mirroring it). */
export async function updateEnrollments(
  tx: Executor,
  rows: Omit<EnrollmentWrite, 'tenantId' | 'journeyId' | 'journeyVersion' | 'endUserId' | 'enrolledAt'>[],
) {
  if (rows.length === 0) return;
  await runStatement(tx, updateStatement, {
    rows: textRows(
      rows.map((r) => [r.id, r.status, r.currentNodeId, r.endedAt, r.goalReachedAt, JSON.stringify(r.state)]),
    ),
  });
}

/**
 * Archive: every in-progress enrollment of the journeys ends `stopped` (what the machine's `stop`
 * input does: the node waited at is left, timers and deadline dropped), in three set-based
 * statements whatever the number. Answers how many were stopped.
 */
export async function stopInProgressEnrollments(
  tx: Executor,
  journeyIds: string[],
  now: Date,
): Promise<number> {
  if (journeyIds.length === 0) return 0;
  const ids = sql`${sql.param(journeyIds)}::uuid[]`;
  const at = sql`${now.toISOString()}::timestamptz`;
  const v = journeyNodeVisits;
  // Locked in id order first, as event processing locks them: the two wait, never deadlock.
  await sqlRows(
    tx,
    sql`select ${e.id} from ${e} where ${e.journeyId} = any(${ids}) and ${e.status} = 'in_progress'
      order by ${e.id} for update`,
  );
  const [row] = await sqlRows<{ n: string }>(
    tx,
    sql`with stopped as (
       update ${e} set ${bare(e.status)} = 'stopped', ${bare(e.endedAt)} = ${at}, ${bare(e.updatedAt)} = ${at},
         ${bare(e.state)} = (${e.state}::jsonb || jsonb_build_object('status', 'stopped', 'waiting', null,
           'endedAt', ${now.getTime()}::bigint))::json
       where ${e.journeyId} = any(${ids}) and ${e.status} = 'in_progress'
       returning ${e.id} as id),
     closed as (
       update ${v} set ${bare(v.exitedAt)} = ${at}
       from stopped s where ${v.enrollmentId} = s.id and ${v.exitedAt} is null)
     select count(*) as n from stopped`,
  );
  await sqlRows(tx, sql`delete from ${journeyTimers} where ${journeyTimers.journeyId} = any(${ids})`);
  return Number(row?.n ?? 0);
}

// ---- enrollment decisions ------------------------------------------------------------------------

const lockDecisionsStatement = fixedStatement<never, { keys: string[] }>(
  sql`select count(pg_advisory_xact_lock(hashtextextended(s.k, 0)))
    from (select k from unnest(${sql.placeholder('keys')}::text[]) with ordinality as x (k, i) order by i) s`,
);

/**
 * Serializes enrollment decisions per key across transactions and instances: transaction-scoped
 * advisory locks, taken in the order given (callers sort their keys), in one statement.
 */
export async function lockEnrollmentDecisions(tx: Executor, keys: string[]): Promise<void> {
  await runStatement(tx, lockDecisionsStatement, { keys });
}

export interface JourneyUser {
  journeyId: string;
  endUserId: string;
}

const pairsOf = (pairs: JourneyUser[]) => ({
  journeyIds: pairs.map((p) => p.journeyId),
  endUserIds: pairs.map((p) => p.endUserId),
});

const enrollmentsOfPairsStatement = fixedStatement<
  Pick<EnrollmentRow, 'journeyId' | 'endUserId' | 'status'> & {
    enrolledAt: Date | string;
    endedAt: Date | string | null;
  },
  ReturnType<typeof pairsOf>
>(
  sql`select ${e.journeyId} as "journeyId", ${e.endUserId} as "endUserId", ${e.status} as "status",
      ${e.enrolledAt} as "enrolledAt", ${e.endedAt} as "endedAt"
    from ${e} join unnest(${sql.placeholder('journeyIds')}::uuid[], ${sql.placeholder('endUserIds')}::uuid[]) as p (j, u)
      on ${e.journeyId} = p.j and ${e.endUserId} = p.u`,
);

/** Every enrollment of these (journey, end user) pairs, any status (re-entry). */
export const listEnrollmentsOf = (tx: Executor, pairs: JourneyUser[]) =>
  runStatement(tx, enrollmentsOfPairsStatement, pairsOf(pairs));

const lockInProgressStatement = fixedStatement<
  StoredEnrollment,
  { tenantIds: string[]; endUserIds: string[] }
>(
  sql`select ${e.id} as "id", ${e.tenantId} as "tenantId", ${e.journeyId} as "journeyId", ${e.endUserId} as "endUserId",
      ${e.journeyVersion} as "journeyVersion", ${e.enrolledAt} as "enrolledAt", ${e.state} as "state"
    from ${e} join unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('endUserIds')}::uuid[]) as p (t, u)
      on ${e.tenantId} = p.t and ${e.endUserId} = p.u
    where ${e.status} = 'in_progress' order by ${e.id} for update of ${e}`,
);

/** The in-progress enrollments of these end users, locked in id order (the event effect's). */
export const lockInProgressEnrollmentsOf = (tx: Executor, users: { tenantId: string; endUserId: string }[]) =>
  runPrepared(tx, lockInProgressStatement, {
    tenantIds: users.map((u) => u.tenantId),
    endUserIds: users.map((u) => u.endUserId),
  });

const inProgressOfPairsStatement = fixedStatement<
  Pick<EnrollmentRow, 'id' | 'journeyId' | 'endUserId'> & { waiting: EnrollmentState['waiting'] },
  ReturnType<typeof pairsOf>
>(
  sql`select ${e.id} as "id", ${e.journeyId} as "journeyId", ${e.endUserId} as "endUserId", ${e.state} -> 'waiting' as "waiting"
    from ${e} join unnest(${sql.placeholder('journeyIds')}::uuid[], ${sql.placeholder('endUserIds')}::uuid[]) as p (j, u)
      on ${e.journeyId} = p.j and ${e.endUserId} = p.u
    where ${e.status} = 'in_progress'`,
);

/** The in-progress enrollment of each of these pairs that has one, with what it waits at. */
export const listInProgressOf = (tx: Executor, pairs: JourneyUser[]) =>
  runStatement(tx, inProgressOfPairsStatement, pairsOf(pairs));

/** The journeys an end user is in progress in. */
export async function listJourneysInProgress(tx: Executor, tenantId: string, endUserId: string) {
  const rows = await tx
    .selectDistinct({ journeyId: e.journeyId })
    .from(e)
    .where(and(eq(e.tenantId, tenantId), eq(e.endUserId, endUserId), eq(e.status, 'in_progress')));
  return rows.map((r) => r.journeyId);
}

/**
 * Merge: an end user's enrollments move to another, except an in-progress one in a journey where
 * the other is in progress too (it stays, and goes with the merged end user).
 */
export async function reassignEnrollments(tx: Executor, tenantId: string, fromId: string, toId: string) {
  const other = sql`(select 1 from ${e} o where o.journey_id = ${e.journeyId} and o.end_user_id = ${toId}
    and o.status = 'in_progress')`;
  await tx
    .update(e)
    .set({ endUserId: toId })
    .where(
      and(
        eq(e.tenantId, tenantId),
        eq(e.endUserId, fromId),
        sql`not (${e.status} = 'in_progress' and exists ${other})`,
      ),
    );
}

// ---- the API's reads -----------------------------------------------------------------------------

const withEndUser = {
  id: e.id,
  journeyId: e.journeyId,
  endUserId: e.endUserId,
  status: e.status,
  currentNodeId: e.currentNodeId,
  enrolledAt: e.enrolledAt,
  endedAt: e.endedAt,
  goalReachedAt: e.goalReachedAt,
  externalId: endUsers.externalId,
  anonymousId: endUsers.anonymousId,
  traits: endUsers.traits,
};

/** A page of a journey's enrollments, newest first, each with its end user. */
export async function listEnrollmentsPage(
  exec: Executor,
  tenantId: string,
  journeyId: string,
  status: EnrollmentStatus | undefined,
  page: PageRequest,
) {
  const where = and(
    eq(e.tenantId, tenantId),
    eq(e.journeyId, journeyId),
    ...(status ? [eq(e.status, status)] : []),
  );
  return listPage(
    exec
      .select(withEndUser)
      .from(e)
      .innerJoin(endUsers, eq(endUsers.id, e.endUserId))
      .where(where)
      .orderBy(desc(e.enrolledAt), desc(e.id)),
    exec.select({ n: count() }).from(e).where(where),
    page,
  );
}

/** One enrollment of the tenant with its end user. */
export async function findEnrollment(exec: Executor, tenantId: string, id: string) {
  const [row] = await exec
    .select(withEndUser)
    .from(e)
    .innerJoin(endUsers, eq(endUsers.id, e.endUserId))
    .where(and(eq(e.tenantId, tenantId), eq(e.id, id)));
  return row;
}
export type EnrollmentWithEndUser = NonNullable<Awaited<ReturnType<typeof findEnrollment>>>;

/** A journey's enrollments counted by status. */
export async function countEnrollmentsByStatus(exec: Executor, tenantId: string, journeyId: string) {
  return exec
    .select({ status: e.status, n: count() })
    .from(e)
    .where(and(eq(e.tenantId, tenantId), eq(e.journeyId, journeyId)))
    .groupBy(e.status);
}

/** The median time from enrollment to the goal (ms) of a journey's enrollments that reached it. */
export async function findMedianTimeToGoal(exec: Executor, tenantId: string, journeyId: string) {
  const [row] = await exec
    .select({
      median: sql<number | null>`percentile_cont(0.5) within group (
        order by extract(epoch from ${e.goalReachedAt} - ${e.enrolledAt}) * 1000)`,
    })
    .from(e)
    .where(
      and(
        eq(e.tenantId, tenantId),
        eq(e.journeyId, journeyId),
        eq(e.status, 'goal_reached'),
        sql`${e.goalReachedAt} is not null`,
      ),
    );
  const median = row?.median;
  return median === null || median === undefined ? null : Number(median);
}

// ---- the session's user state ------------------------------------------------------------------

/** Per enrollment: journey, its version, id, status, enrolled/ended (ms), waiting. */
export interface EnrollmentStateEntry {
  j: string;
  v: number | null;
  e: string;
  s: string;
  a: number;
  x: number | null;
  w: EnrollmentState['waiting'];
}

const entryOf = (
  x: SQL,
) => sql`jsonb_build_object('j', ${x}.journey_id, 'v', ${x}.journey_version, 'e', ${x}.id, 's', ${x}.status,
  'a', (extract(epoch from ${x}.enrolled_at) * 1000)::float8, 'x', (extract(epoch from ${x}.ended_at) * 1000)::float8,
  'w', ${x}.state -> 'waiting')`;

/**
 * The session lookup's column of the user's enrollments: the in-progress ones, and the ended
 * ones of audience-only journeys (re-entry). Two index lookups, never a scan: the partial index
 * on in-progress (tenant, end user), and (journey, end user).
 */
export const enrollmentsOfUser: UserStateQuery<EnrollmentStateEntry[]> = {
  sql: (tenant, endUser) => {
    const columns = sql`${e.journeyId} as journey_id, ${e.journeyVersion} as journey_version, ${e.id} as id, ${e.status} as status,
      ${e.enrolledAt} as enrolled_at, ${e.endedAt} as ended_at, ${e.state} as state`;
    return sql`(select coalesce(jsonb_agg(${entryOf(sql`x`)}), '[]'::jsonb)
      from (
        select ${columns} from ${e}
        where ${e.tenantId} = ${tenant} and ${e.endUserId} = ${endUser} and ${e.status} = 'in_progress'
        union all
        select ${columns}
        from ${journeys} join ${e} on ${e.journeyId} = ${journeys.id} and ${e.endUserId} = ${endUser}
        where ${journeys.tenantId} = ${tenant} and ${isAudienceOnly} and ${e.status} <> 'in_progress'
      ) x)`;
  },
  parse: (value) => jsonValue<EnrollmentStateEntry[]>(value) ?? [],
};
