import type { Executor } from '../../../db/client.js';
import { rawQuery } from '../../../db/raw.js';
import { linesAs, quoted, textRows } from '../../../db/text-rows.js';
import type { CompiledJourney } from '../engine/graph.js';
import {
  type EnrollmentEffect,
  type EnrollmentInput,
  type EnrollmentState,
  type StepContext,
  step,
} from '../engine/machine.js';

/**
 * The durable side of the enrollment machine (engine/machine.ts): an enrollment's state
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
  /**
   * The state as stored, whose timers (`timersOf`) are the enrollment's rows in journey_timers:
   * a write then touches only the timers that differ. Null for a new enrollment, or when the rows
   * are not known to match (they are then all rewritten).
   */
  stored: EnrollmentState | null;
  effects: EnrollmentEffect[];
  changed: boolean;
}

/** A stored enrollment, read (and locked) by the caller, about to be stepped. */
export const storedLive = (row: StoredRow & { state: EnrollmentState }): Live => ({
  ref: refOf(row),
  state: row.state,
  stored: row.state,
  effects: [],
  changed: false,
});

/**
 * What a caller gives `feed` of the step's context. Its fields are copied one by one into the
 * step's (no spread on the per-timer path), so this names exactly those: a field added to
 * StepContext cannot be passed here, and silently dropped, until it is copied too.
 */
export type FeedContext = Pick<StepContext, 'nowMs' | 'context' | 'goalMet'>;

/** Feeds one input; keeps the effects when it applied. */
export function feed(
  live: Live,
  journey: CompiledJourney,
  input: EnrollmentInput,
  ctx: FeedContext,
): boolean {
  const { nowMs, context, goalMet } = ctx;
  const result = step(journey, live.state, input, { nowMs, context, goalMet, enrollmentId: live.ref.id });
  if (!result.applied) return false;
  live.state = result.state;
  live.effects.push(...result.effects);
  live.changed = true;
  return true;
}

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
  // Object literals, not a spread of shared fields: a spread with more fields after it costs
  // microseconds per object on Node 20, and this runs for every stepped enrollment.
  const out: TimerRow[] = [];
  const { id: enrollmentId, tenantId, journeyId } = ref;
  const w = state.waiting;
  if (w && w.kind !== 'content' && w.dueAt !== undefined) {
    out.push({
      enrollmentId,
      kind: 'node',
      tenantId,
      journeyId,
      nodeId: w.nodeId,
      visit: w.visit,
      dueAt: w.dueAt,
    });
  }
  if (state.deadlineAt !== null && state.goalMetAt === null) {
    out.push({
      enrollmentId,
      kind: 'deadline',
      tenantId,
      journeyId,
      nodeId: null,
      visit: 0,
      dueAt: state.deadlineAt,
    });
  }
  return out;
}

const at = (column: string) => `to_timestamp(${column} / 1000)`;

/**
 * Writes what the steps of `lives` changed. New enrollments that lost a race (another in-progress
 * enrollment of the same user in the journey committed first) are dropped with their effects.
 * Returns the enrollments written.
 *
 * Each statement gets its rows as one text parameter (db/text-rows.ts), times as epoch ms.
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
       select u.id, u.tenant_id, u.journey_id, u.end_user_id, u.status, u.current_node_id, u.state,
         ${at('u.enrolled_at')}, ${at('u.ended_at')}, ${at('u.goal_reached_at')}, ${at('u.enrolled_at')}
       from ${linesAs('$1', 'u', ['id uuid', 'tenant_id uuid', 'journey_id uuid', 'end_user_id uuid', 'status text', 'current_node_id uuid?', 'enrolled_at float8', 'ended_at float8?', 'goal_reached_at float8?', 'state json'])}
       on conflict do nothing returning id`,
      [
        textRows(
          fresh.map((l) => [
            l.ref.id,
            l.ref.tenantId,
            l.ref.journeyId,
            l.ref.endUserId,
            l.state.status,
            l.state.currentNodeId,
            l.ref.enrolledAt,
            l.state.endedAt,
            goalReachedAt(l.state),
            JSON.stringify(l.state),
          ]),
        ),
      ],
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
         ended_at = ${at('u.ended_at')}, goal_reached_at = ${at('u.goal_reached_at')}, updated_at = clock_timestamp()
       from ${linesAs('$1', 'u', ['id uuid', 'status text', 'current_node_id uuid?', 'ended_at float8?', 'goal_reached_at float8?', 'state json'])}
       where e.id = u.id`,
      [
        textRows(
          existing.map((l) => [
            l.ref.id,
            l.state.status,
            l.state.currentNodeId,
            l.state.endedAt,
            goalReachedAt(l.state),
            JSON.stringify(l.state),
          ]),
        ),
      ],
    );
  }
  await writeVisits(tx, written);
  await writeTimers(tx, written);
  for (const l of written) {
    l.effects = [];
    l.changed = false;
    l.ref.isNew = false;
    l.stored = l.state;
  }
  return written;
}

async function writeVisits(tx: Executor, lives: Live[]): Promise<void> {
  const entered: VisitRow[] = [];
  const exitedOnly: VisitRow[] = [];
  for (const l of lives) {
    // A step's few visits (an array: no map and no string key per effect).
    const rows: VisitRow[] = [];
    for (const e of l.effects) {
      if (e.type !== 'nodeEntered' && e.type !== 'nodeExited') continue;
      let row = rows.find((r) => r.nodeId === e.nodeId && r.visit === e.visit);
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
        rows.push(row);
      }
      if (e.type === 'nodeEntered') row.enteredAt = e.at;
      else {
        row.exitedAt = e.at;
        row.label = e.edgeLabel ?? null;
      }
    }
    for (const row of rows) (row.enteredAt !== null ? entered : exitedOnly).push(row);
  }
  if (entered.length > 0) {
    await rawQuery(
      tx,
      `insert into journey_node_visits (enrollment_id, node_id, visit, tenant_id, journey_id, entered_at, exited_at, edge_label)
       select v.enrollment_id, v.node_id, v.visit, v.tenant_id, v.journey_id, ${at('v.entered_at')}, ${at('v.exited_at')}, v.label
       from ${linesAs('$1', 'v', ['enrollment_id uuid', 'node_id uuid', 'visit int', 'tenant_id uuid', 'journey_id uuid', 'entered_at float8', 'exited_at float8?', 'label quoted?'])}`,
      [
        textRows(
          entered.map((v) => [
            v.enrollmentId,
            v.nodeId,
            v.visit,
            v.tenantId,
            v.journeyId,
            v.enteredAt,
            v.exitedAt,
            quoted(v.label),
          ]),
        ),
      ],
    );
  }
  if (exitedOnly.length > 0) {
    await rawQuery(
      tx,
      `update journey_node_visits v set exited_at = ${at('u.exited_at')}, edge_label = u.label
       from ${linesAs('$1', 'u', ['enrollment_id uuid', 'node_id uuid', 'visit int', 'exited_at float8', 'label quoted?'])}
       where v.enrollment_id = u.enrollment_id and v.node_id = u.node_id and v.visit = u.visit
         and v.exited_at is null`,
      [textRows(exitedOnly.map((v) => [v.enrollmentId, v.nodeId, v.visit, v.exitedAt, quoted(v.label)]))],
    );
  }
}

const sameTimer = (a: TimerRow, b: TimerRow) =>
  a.nodeId === b.nodeId && a.visit === b.visit && a.dueAt === b.dueAt;
const TIMER_KINDS = ['node', 'deadline'] as const;

/**
 * Makes each enrollment's timer rows `timersOf` its new state: only the rows that differ from
 * the stored state's are written (a fired WAIT's row is updated in place to the next wait), the
 * kinds it no longer has deleted. Rows not known to match (`stored` null) are all rewritten.
 */
async function writeTimers(tx: Executor, lives: Live[]): Promise<void> {
  const upserts: TimerRow[] = [];
  const deletes: { enrollmentId: string; kind: TimerRow['kind'] }[] = [];
  for (const l of lives) {
    const after = timersOf(l.ref, l.state);
    if (l.ref.isNew) {
      upserts.push(...after);
      continue;
    }
    const before = l.stored === null ? null : timersOf(l.ref, l.stored);
    for (const kind of TIMER_KINDS) {
      const now = after.find((t) => t.kind === kind);
      const was = before?.find((t) => t.kind === kind);
      if (now) {
        if (!was || !sameTimer(was, now)) upserts.push(now);
      } else if (was || before === null) deletes.push({ enrollmentId: l.ref.id, kind });
    }
  }
  if (deletes.length > 0) {
    await rawQuery(
      tx,
      `delete from journey_timers t using ${linesAs('$1', 'd', ['enrollment_id uuid', 'kind text'])}
       where t.enrollment_id = d.enrollment_id and t.kind = d.kind`,
      [textRows(deletes.map((d) => [d.enrollmentId, d.kind]))],
    );
  }
  if (upserts.length > 0) {
    await rawQuery(
      tx,
      `insert into journey_timers (enrollment_id, kind, tenant_id, journey_id, node_id, visit, due_at)
       select t.enrollment_id, t.kind, t.tenant_id, t.journey_id, t.node_id, t.visit, ${at('t.due_at')}
       from ${linesAs('$1', 't', ['enrollment_id uuid', 'kind text', 'tenant_id uuid', 'journey_id uuid', 'node_id uuid?', 'visit int', 'due_at float8'])}
       on conflict (enrollment_id, kind) do update
         set node_id = excluded.node_id, visit = excluded.visit, due_at = excluded.due_at`,
      [
        textRows(
          upserts.map((t) => [t.enrollmentId, t.kind, t.tenantId, t.journeyId, t.nodeId, t.visit, t.dueAt]),
        ),
      ],
    );
  }
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
         state = (e.state::jsonb || jsonb_build_object('status', 'stopped', 'waiting', null, 'endedAt', $3::bigint))::json
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

interface StoredRow {
  id: string;
  tenant_id: string;
  journey_id: string;
  end_user_id: string;
  /** A timestamp, or epoch ms. */
  enrolled_at: Date | string | number;
}

/** Row → ref of a stored enrollment. */
export const refOf = (r: StoredRow): EnrollmentRef => ({
  id: r.id,
  tenantId: r.tenant_id,
  journeyId: r.journey_id,
  endUserId: r.end_user_id,
  enrolledAt: new Date(r.enrolled_at).getTime(),
  isNew: false,
});
