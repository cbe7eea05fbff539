import type { Executor } from '../../../db/client.js';
import { columnsOf, rawQuery } from '../../../db/raw.js';
import type { CompiledJourney } from '../../../engine/journeys/graph.js';
import {
  type EnrollmentEffect,
  type EnrollmentInput,
  type EnrollmentState,
  type StepContext,
  step,
} from '../../../engine/journeys/machine.js';

/**
 * The durable side of the enrollment machine (engine/journeys/machine.ts): an enrollment's state
 * is stored as the machine returns it, and the effects of its steps are written set-based — one
 * statement per table for any number of enrollments — inside the caller's transaction (the event
 * batch, the timer chunk, the manual enrollment, the session's first exposure).
 *
 * - node history: `nodeEntered` inserts the (enrollment, node, visit) row — its primary key makes
 *   a replayed step fail rather than enter a visit twice — and `nodeExited` closes it;
 * - timers are the state's: after a step, the enrollment has exactly the node timer of
 *   `state.waiting` (if it has a due time) and the deadline of `state.deadlineAt` (while the goal
 *   is not met), nothing else;
 * - the row mirrors status, current node, end and goal time for queries.
 */

export interface EnrollmentRef {
  id: string;
  tenantId: string;
  journeyId: string;
  endUserId: string;
  /** Epoch ms. */
  enrolledAt: number;
  /** Not stored yet: inserted (unless another enrollment of the user is in progress meanwhile). */
  isNew: boolean;
}

/** One enrollment being stepped: its state so far and the effects not yet written. */
export interface Live {
  ref: EnrollmentRef;
  state: EnrollmentState;
  effects: EnrollmentEffect[];
  changed: boolean;
}

/** Feeds one input; keeps the effects when it applied. */
export function feed(
  live: Live,
  journey: CompiledJourney,
  input: EnrollmentInput,
  ctx: Omit<StepContext, 'enrollmentId'>,
): boolean {
  const result = step(journey, live.state, input, { ...ctx, enrollmentId: live.ref.id });
  if (!result.applied) return false;
  live.state = result.state;
  live.effects.push(...result.effects);
  live.changed = true;
  return true;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function goalReachedAt(state: EnrollmentState): number | null {
  if (state.status !== 'goal_reached') return null;
  return state.goalMetAt ?? state.endedAt;
}

interface VisitRow {
  enrollmentId: string;
  tenantId: string;
  journeyId: string;
  nodeId: string;
  visit: number;
  enteredAt: number | null;
  exitedAt: number | null;
  label: string | null;
}

interface TimerRow {
  enrollmentId: string;
  kind: 'node' | 'deadline';
  tenantId: string;
  journeyId: string;
  nodeId: string | null;
  visit: number;
  dueAt: number;
}

/** The timers an enrollment in `state` has. */
export function timersOf(ref: EnrollmentRef, state: EnrollmentState): TimerRow[] {
  if (state.status !== 'in_progress') return [];
  const out: TimerRow[] = [];
  const base = { enrollmentId: ref.id, tenantId: ref.tenantId, journeyId: ref.journeyId };
  const w = state.waiting;
  if (w && w.kind !== 'content' && w.dueAt !== undefined) {
    out.push({ ...base, kind: 'node', nodeId: w.nodeId, visit: w.visit, dueAt: w.dueAt });
  }
  if (state.deadlineAt !== null && state.goalMetAt === null) {
    out.push({ ...base, kind: 'deadline', nodeId: null, visit: 0, dueAt: state.deadlineAt });
  }
  return out;
}

/**
 * Writes what the steps of `lives` changed. New enrollments that lost a race (another in-progress
 * enrollment of the same user in the journey committed first) are dropped with their effects.
 * Returns the enrollments written.
 */
export async function persist(tx: Executor, lives: Live[]): Promise<Live[]> {
  const changed = lives.filter((l) => l.changed || l.ref.isNew);
  if (changed.length === 0) return [];
  let written = changed;
  const fresh = changed.filter((l) => l.ref.isNew);
  if (fresh.length > 0) {
    const inserted = await rawQuery<{ id: string }>(
      tx,
      `insert into journey_enrollments
         (id, tenant_id, journey_id, end_user_id, status, current_node_id, state, enrolled_at, ended_at, goal_reached_at, updated_at)
       select u.*, u.enrolled_at from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::uuid[],
         $7::jsonb[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[])
         as u (id, tenant_id, journey_id, end_user_id, status, current_node_id, state, enrolled_at, ended_at, goal_reached_at)
       on conflict do nothing returning id`,
      columnsOf(fresh, [
        (l) => l.ref.id,
        (l) => l.ref.tenantId,
        (l) => l.ref.journeyId,
        (l) => l.ref.endUserId,
        (l) => l.state.status,
        (l) => l.state.currentNodeId,
        (l) => JSON.stringify(l.state),
        (l) => iso(l.ref.enrolledAt),
        (l) => iso(l.state.endedAt),
        (l) => iso(goalReachedAt(l.state)),
      ]),
    );
    if (inserted.length < fresh.length) {
      const ok = new Set(inserted.map((r) => r.id));
      written = changed.filter((l) => !l.ref.isNew || ok.has(l.ref.id));
    }
  }
  const existing = written.filter((l) => !l.ref.isNew);
  if (existing.length > 0) {
    await rawQuery(
      tx,
      `update journey_enrollments e set status = u.status, current_node_id = u.current_node_id, state = u.state,
         ended_at = u.ended_at, goal_reached_at = u.goal_reached_at, updated_at = clock_timestamp()
       from unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[], $5::timestamptz[], $6::timestamptz[])
         as u (id, status, current_node_id, state, ended_at, goal_reached_at)
       where e.id = u.id`,
      columnsOf(existing, [
        (l) => l.ref.id,
        (l) => l.state.status,
        (l) => l.state.currentNodeId,
        (l) => JSON.stringify(l.state),
        (l) => iso(l.state.endedAt),
        (l) => iso(goalReachedAt(l.state)),
      ]),
    );
  }
  await writeVisits(tx, written);
  await writeTimers(tx, written, existing);
  for (const l of written) {
    l.effects = [];
    l.changed = false;
    l.ref.isNew = false;
  }
  return written;
}

async function writeVisits(tx: Executor, lives: Live[]): Promise<void> {
  const entered: VisitRow[] = [];
  const exitedOnly: VisitRow[] = [];
  for (const l of lives) {
    const rows = new Map<string, VisitRow>();
    for (const e of l.effects) {
      if (e.type !== 'nodeEntered' && e.type !== 'nodeExited') continue;
      const key = `${e.nodeId}:${e.visit}`;
      let row = rows.get(key);
      if (!row) {
        row = {
          enrollmentId: l.ref.id,
          tenantId: l.ref.tenantId,
          journeyId: l.ref.journeyId,
          nodeId: e.nodeId,
          visit: e.visit,
          enteredAt: null,
          exitedAt: null,
          label: null,
        };
        rows.set(key, row);
      }
      if (e.type === 'nodeEntered') row.enteredAt = e.at;
      else {
        row.exitedAt = e.at;
        row.label = e.edgeLabel ?? null;
      }
    }
    for (const row of rows.values()) (row.enteredAt !== null ? entered : exitedOnly).push(row);
  }
  if (entered.length > 0) {
    await rawQuery(
      tx,
      `insert into journey_node_visits (enrollment_id, node_id, visit, tenant_id, journey_id, entered_at, exited_at, edge_label)
       select * from unnest($1::uuid[], $2::uuid[], $3::int[], $4::uuid[], $5::uuid[], $6::timestamptz[], $7::timestamptz[], $8::text[])`,
      columnsOf(entered, [
        'enrollmentId',
        'nodeId',
        'visit',
        'tenantId',
        'journeyId',
        (r) => iso(r.enteredAt),
        (r) => iso(r.exitedAt),
        'label',
      ]),
    );
  }
  if (exitedOnly.length > 0) {
    await rawQuery(
      tx,
      `update journey_node_visits v set exited_at = u.exited_at, edge_label = u.label
       from unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::text[])
         as u (enrollment_id, node_id, visit, exited_at, label)
       where v.enrollment_id = u.enrollment_id and v.node_id = u.node_id and v.visit = u.visit
         and v.exited_at is null`,
      columnsOf(exitedOnly, ['enrollmentId', 'nodeId', 'visit', (r) => iso(r.exitedAt), 'label']),
    );
  }
}

async function writeTimers(tx: Executor, lives: Live[], existing: Live[]): Promise<void> {
  if (existing.length > 0) {
    await rawQuery(tx, 'delete from journey_timers where enrollment_id = any($1::uuid[])', [
      existing.map((l) => l.ref.id),
    ]);
  }
  const timers = lives.flatMap((l) => timersOf(l.ref, l.state));
  if (timers.length === 0) return;
  await rawQuery(
    tx,
    `insert into journey_timers (enrollment_id, kind, tenant_id, journey_id, node_id, visit, due_at)
     select * from unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::uuid[], $6::int[], $7::timestamptz[])`,
    columnsOf(timers, [
      'enrollmentId',
      'kind',
      'tenantId',
      'journeyId',
      'nodeId',
      'visit',
      (t) => iso(t.dueAt),
    ]),
  );
}

/**
 * Archive: every in-progress enrollment of the journeys ends `stopped` (what the machine's `stop`
 * input does: the node waited at is left, timers and deadline dropped), in three set-based
 * statements whatever the number. Returns how many were stopped.
 */
export async function stopEnrollments(tx: Executor, journeyIds: string[], now: Date): Promise<number> {
  if (journeyIds.length === 0) return 0;
  // Locked in id order first, as event processing locks them: the two wait, never deadlock.
  await rawQuery(
    tx,
    `select id from journey_enrollments where journey_id = any($1::uuid[]) and status = 'in_progress'
     order by id for update`,
    [journeyIds],
  );
  const [row] = await rawQuery<{ n: string }>(
    tx,
    `with stopped as (
       update journey_enrollments e set status = 'stopped', ended_at = $2, updated_at = $2,
         state = e.state || jsonb_build_object('status', 'stopped', 'waiting', null, 'endedAt', $3::bigint)
       where e.journey_id = any($1::uuid[]) and e.status = 'in_progress'
       returning e.id),
     closed as (
       update journey_node_visits v set exited_at = $2
       from stopped s where v.enrollment_id = s.id and v.exited_at is null)
     select count(*) as n from stopped`,
    [journeyIds, now.toISOString(), now.getTime()],
  );
  await rawQuery(tx, 'delete from journey_timers where journey_id = any($1::uuid[])', [journeyIds]);
  return Number(row?.n ?? 0);
}

/** Row → ref of a stored enrollment. */
export const refOf = (r: {
  id: string;
  tenant_id: string;
  journey_id: string;
  end_user_id: string;
  enrolled_at: Date | string;
}): EnrollmentRef => ({
  id: r.id,
  tenantId: r.tenant_id,
  journeyId: r.journey_id,
  endUserId: r.end_user_id,
  enrolledAt: new Date(r.enrolled_at).getTime(),
  isNew: false,
});
