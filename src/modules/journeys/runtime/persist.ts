import type { Executor } from '../../../db/client.js';
import type { EffectContext } from '../../events/index.js';
import { emitWebhookEvents, type WebhookEvent } from '../../webhooks/index.js';
import type { CompiledJourney } from '../engine/graph.js';
import {
  type EnrollmentEffect,
  type EnrollmentInput,
  type EnrollmentState,
  type StepContext,
  step,
} from '../engine/machine.js';
import { insertEnrollments, type StoredEnrollment, updateEnrollments } from '../store/enrollments.js';
import { deleteTimers, type TimerRow, type TimerWrite, upsertTimers } from '../store/timers.js';
import { closeVisits, insertVisits, type VisitWrite } from '../store/visits.js';

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
  /** The journey version the enrollment runs (the live one when it entered; null: none stored). */
  version: number | null;
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
export const storedLive = (row: StoredEnrollment): Live => ({
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

/** The timers an enrollment in `state` has. */
export function timersOf(ref: EnrollmentRef, state: EnrollmentState): TimerWrite[] {
  if (state.status !== 'in_progress') return [];
  // Object literals, not a spread of shared fields: a spread with more fields after it costs
  // microseconds per object on Node 20, and this runs for every stepped enrollment.
  const out: TimerWrite[] = [];
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

/**
 * Writes what the steps of `lives` changed. New enrollments that lost a race (another in-progress
 * enrollment of the same user in the journey committed first) are dropped with their effects.
 * Returns the enrollments written.
 *
 * One statement per table for any number of enrollments (store/).
 */
export async function persist(tx: Executor, lives: Live[], effects?: EffectContext): Promise<Live[]> {
  const changed = lives.filter((l) => l.changed || l.ref.isNew);
  if (changed.length === 0) return [];
  let written = changed;
  const fresh = changed.filter((l) => l.ref.isNew);
  if (fresh.length > 0) {
    const inserted = await insertEnrollments(
      tx,
      fresh.map((l) => ({
        id: l.ref.id,
        tenantId: l.ref.tenantId,
        journeyId: l.ref.journeyId,
        journeyVersion: l.ref.version,
        endUserId: l.ref.endUserId,
        status: l.state.status,
        currentNodeId: l.state.currentNodeId,
        enrolledAt: l.ref.enrolledAt,
        endedAt: l.state.endedAt,
        goalReachedAt: goalReachedAt(l.state),
        state: l.state,
      })),
    );
    if (inserted.size < fresh.length) written = changed.filter((l) => !l.ref.isNew || inserted.has(l.ref.id));
  }
  await updateEnrollments(
    tx,
    written
      .filter((l) => !l.ref.isNew)
      .map((l) => ({
        id: l.ref.id,
        status: l.state.status,
        currentNodeId: l.state.currentNodeId,
        endedAt: l.state.endedAt,
        goalReachedAt: goalReachedAt(l.state),
        state: l.state,
      })),
  );
  await writeVisits(tx, written);
  await writeTimers(tx, written);
  await emitJourneyWebhooks(tx, written, effects);
  for (const l of written) {
    l.effects = [];
    l.changed = false;
    l.ref.isNew = false;
    l.stored = l.state;
  }
  return written;
}

async function writeVisits(tx: Executor, lives: Live[]): Promise<void> {
  const entered: VisitWrite[] = [];
  const exitedOnly: VisitWrite[] = [];
  for (const l of lives) {
    // A step's few visits (an array: no map and no string key per effect).
    const rows: VisitWrite[] = [];
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
          edgeLabel: null,
        };
        rows.push(row);
      }
      if (e.type === 'nodeEntered') row.enteredAt = e.at;
      else {
        row.exitedAt = e.at;
        row.edgeLabel = e.edgeLabel ?? null;
      }
    }
    for (const row of rows) (row.enteredAt !== null ? entered : exitedOnly).push(row);
  }
  await insertVisits(tx, entered);
  await closeVisits(tx, exitedOnly);
}

const sameTimer = (a: TimerWrite, b: TimerWrite) =>
  a.nodeId === b.nodeId && a.visit === b.visit && a.dueAt === b.dueAt;
const TIMER_KINDS = ['node', 'deadline'] as const;

/**
 * Makes each enrollment's timer rows `timersOf` its new state: only the rows that differ from
 * the stored state's are written (a fired WAIT's row is updated in place to the next wait), the
 * kinds it no longer has deleted. Rows not known to match (`stored` null) are all rewritten.
 */
async function writeTimers(tx: Executor, lives: Live[]): Promise<void> {
  const upserts: TimerWrite[] = [];
  const deletes: Pick<TimerRow, 'enrollmentId' | 'kind'>[] = [];
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
  await deleteTimers(tx, deletes);
  await upsertTimers(tx, upserts);
}

/** Row → ref of a stored enrollment. */
export const refOf = (r: Omit<StoredEnrollment, 'state'>): EnrollmentRef => ({
  id: r.id,
  tenantId: r.tenantId,
  journeyId: r.journeyId,
  endUserId: r.endUserId,
  version: r.journeyVersion,
  enrolledAt: new Date(r.enrolledAt).getTime(),
  isNew: false,
});

/**
 * `journey.enrolled` for the enrollments inserted and `journey.exited` for those that left
 * in_progress in this write, in its transaction. From an event effect the subscriptions are read
 * from its cache; elsewhere (timers, sessions) one INSERT … SELECT writes only what an endpoint
 * subscribes to.
 */
async function emitJourneyWebhooks(tx: Executor, written: Live[], effects: EffectContext | undefined) {
  const out: WebhookEvent[] = [];
  for (const l of written) {
    const base = {
      enrollmentId: l.ref.id,
      journeyId: l.ref.journeyId,
      endUserId: l.ref.endUserId,
      enrolledAt: new Date(l.ref.enrolledAt).toISOString(),
    };
    if (l.ref.isNew) out.push({ tenantId: l.ref.tenantId, type: 'journey.enrolled', data: base });
    const left =
      l.state.status !== 'in_progress' &&
      (l.ref.isNew || l.stored === null || l.stored.status === 'in_progress');
    if (left) {
      out.push({
        tenantId: l.ref.tenantId,
        type: 'journey.exited',
        data: {
          ...base,
          status: l.state.status,
          endedAt: l.state.endedAt === null ? null : new Date(l.state.endedAt).toISOString(),
        },
      });
    }
  }
  if (out.length > 0) await emitWebhookEvents(tx, out, { now: new Date(), ...(effects ? { effects } : {}) });
}
