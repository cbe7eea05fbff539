import { createHash } from 'node:crypto';
import { matchesRules, type RuleContext } from '../../../engine/rules.js';
import { type CompiledJourney, edgeFrom } from './graph.js';
import { type GoalConfig, type JourneyNode, MAX_NODES } from './schemas.js';
import { eventMatchesName, goalMet, type JourneyEvent } from './triggers.js';

/**
 * The enrollment state machine: one user's way through a journey, as a pure function
 * `step(journey, state, input, ctx) → { state, effects }`. The durable layer stores the state,
 * carries out the effects (each keyed by node and visit, so a retried step repeats none of them)
 * and feeds the inputs: the enrollment itself, timers, the user's events, content done, stop.
 * See docs/journeys.md for the semantics.
 */

export const ENROLLMENT_STATUSES = [
  'in_progress',
  'completed',
  'goal_reached',
  'abandoned',
  'stopped',
] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];
export type TerminalStatus = Exclude<EnrollmentStatus, 'in_progress'>;

/**
 * Nodes entered in one step at most. A published journey never comes near it (every cycle holds
 * a WAIT or WAIT_FOR_EVENT, where a step stops, so a step enters each node once at most); it
 * guards against a graph that was never validated.
 */
export const MAX_STEPS_PER_INPUT = 2 * MAX_NODES;
/** Visits of one node by one enrollment: ends a loop that would otherwise go round for ever. */
export const MAX_VISITS_PER_NODE = 1000;
export const DAY_MS = 86_400_000;

/** What an in-progress enrollment waits for, at which node and visit (since `since`, ms). */
export type Waiting =
  | { kind: 'timer'; nodeId: string; visit: number; since: number; dueAt: number }
  | { kind: 'event'; nodeId: string; visit: number; since: number; eventName: string; dueAt?: number }
  | {
      kind: 'content';
      nodeId: string;
      visit: number;
      since: number;
      contentType: string;
      contentId: string;
    };

/** Plain JSON, so the durable layer can store it as it is. Times are epoch milliseconds. */
export interface EnrollmentState {
  status: EnrollmentStatus;
  /** The node the enrollment waits at, or where it ended; null before `enter`. */
  currentNodeId: string | null;
  /** How many times each node was entered; the latest visit is the one that counts. */
  visits: Record<string, number>;
  /** Set exactly while in progress (after `enter`). */
  waiting: Waiting | null;
  /** enrolledAt + the goal's deadline in days; null without a deadline. */
  deadlineAt: number | null;
  /** When a GOAL_CHECK found the goal met (the enrollment then ends goal_reached, not completed). */
  goalMetAt: number | null;
  endedAt: number | null;
}

export type EnrollmentInput =
  | { type: 'enter' }
  | { type: 'timer'; nodeId: string; visit: number }
  | { type: 'event'; event: JourneyEvent }
  | { type: 'contentDone'; nodeId: string; visit: number }
  | { type: 'goal' }
  | { type: 'deadline' }
  | { type: 'stop' };

export interface StepContext {
  /** The time of the input (an event's own timestamp): timers, deadlines and history use it. */
  nowMs: number;
  /** Seeds SPLIT: the same enrollment takes the same branch on a replay. */
  enrollmentId: string;
  /** The user's current rule context (traits, role, device) for CONDITION and attribute goals. */
  context?: RuleContext;
  /**
   * Whether the journey's goal is met, for GOAL_CHECK. Default: attribute_match goals are checked
   * on `context`; the other (event) goals count as not met, since meeting them at any time
   * already ends the enrollment.
   */
  goalMet?: (goal: GoalConfig) => boolean;
}

/** Why an enrollment ended. */
export type FinishReason = 'exit' | 'dangling' | 'step_limit' | 'visit_limit' | 'goal' | 'deadline' | 'stop';

export type EnrollmentEffect =
  | { type: 'nodeEntered'; nodeId: string; visit: number; at: number }
  | { type: 'nodeExited'; nodeId: string; visit: number; at: number; edgeLabel?: string; nextNodeId?: string }
  | { type: 'scheduleTimer'; nodeId: string; visit: number; dueAt: number }
  | { type: 'cancelTimer'; nodeId: string; visit: number }
  | { type: 'showContent'; nodeId: string; visit: number; contentType: string; contentId: string }
  | { type: 'goalMet'; nodeId: string; visit: number; at: number }
  | { type: 'scheduleDeadline'; dueAt: number }
  | { type: 'cancelDeadline' }
  | { type: 'finish'; status: TerminalStatus; reason: FinishReason; at: number };

export interface StepResult {
  state: EnrollmentState;
  effects: EnrollmentEffect[];
  /** False when the input did not apply (stale timer, unrelated event, already ended): nothing changed. */
  applied: boolean;
}

/**
 * The idempotency key of an effect within its enrollment: `type:nodeId:visit`, or the type alone
 * for the enrollment-wide ones. No key is ever emitted twice in an enrollment's life.
 */
export function effectKey(effect: EnrollmentEffect): string {
  return 'nodeId' in effect ? `${effect.type}:${effect.nodeId}:${effect.visit}` : effect.type;
}

/** A new enrollment, before `enter`. */
export function initialEnrollmentState(): EnrollmentState {
  return {
    status: 'in_progress',
    currentNodeId: null,
    visits: {},
    waiting: null,
    deadlineAt: null,
    goalMetAt: null,
    endedAt: null,
  };
}

/** SPLIT's bucket, 0..99: the first 32 bits of sha256(enrollment id, node id, visit), mod 100. */
export function splitBucket(enrollmentId: string, nodeId: string, visit: number): number {
  const digest = createHash('sha256').update(`${enrollmentId}\n${nodeId}\n${visit}`).digest();
  return digest.readUInt32BE(0) % 100;
}

/** The branch whose cumulative percentage range holds `bucket` (in branch order), if any. */
export function chooseBranch(branches: readonly { label: string; percentage: number }[], bucket: number) {
  let upTo = 0;
  for (const branch of branches) {
    upTo += branch.percentage;
    if (bucket < upTo) return branch.label;
  }
  return undefined;
}

function goalMetNow(goal: GoalConfig | null, ctx: StepContext): boolean {
  if (goal === null) return false;
  if (ctx.goalMet) return ctx.goalMet(goal);
  return goal.type === 'attribute_match' && goalMet(goal, { context: ctx.context ?? {} });
}

function statusFor(reason: FinishReason, goalMetAt: number | null): TerminalStatus {
  switch (reason) {
    case 'goal':
      return 'goal_reached';
    case 'deadline':
      return 'abandoned';
    case 'stop':
      return 'stopped';
    default:
      return goalMetAt === null ? 'completed' : 'goal_reached';
  }
}

const unchanged = (state: EnrollmentState): StepResult => ({ state, effects: [], applied: false });

/**
 * One input to one enrollment. Never throws for well-typed arguments; an input that does not
 * apply returns the same state, no effects and `applied: false`.
 */
export function step(
  journey: CompiledJourney,
  state: EnrollmentState,
  input: EnrollmentInput,
  ctx: StepContext,
): StepResult {
  if (state.status !== 'in_progress') return unchanged(state);
  const run = new Run(journey, copyOf(state), ctx);
  const applied = run.apply(input);
  return applied ? { state: run.state, effects: run.effects, applied } : unchanged(state);
}

/**
 * A copy the step may change (the input state stays as it was). Field by field: a spread followed
 * by more fields costs microseconds per object on Node 20, and every fired timer makes one.
 */
const copyOf = (s: EnrollmentState): EnrollmentState => ({
  status: s.status,
  currentNodeId: s.currentNodeId,
  visits: { ...s.visits },
  waiting: s.waiting,
  deadlineAt: s.deadlineAt,
  goalMetAt: s.goalMetAt,
  endedAt: s.endedAt,
});

/** The work of one step: a mutable copy of the state and the effects so far. */
class Run {
  readonly effects: EnrollmentEffect[] = [];

  constructor(
    private readonly journey: CompiledJourney,
    readonly state: EnrollmentState,
    private readonly ctx: StepContext,
  ) {}

  private get now(): number {
    return this.ctx.nowMs;
  }

  apply(input: EnrollmentInput): boolean {
    const s = this.state;
    if (input.type === 'enter') {
      if (s.currentNodeId !== null || s.waiting !== null) return false;
      return this.enter();
    }
    if (s.waiting === null) return false; // not entered yet: only `enter` applies
    // A deadline that has passed wins over whatever else arrives, unless the goal was met first.
    if (
      s.deadlineAt !== null &&
      s.goalMetAt === null &&
      (input.type === 'deadline' || this.now >= s.deadlineAt)
    ) {
      this.finish('deadline');
      return true;
    }
    const w = s.waiting;
    switch (input.type) {
      case 'stop':
        this.finish('stop');
        return true;
      case 'goal':
        this.finish('goal');
        return true;
      case 'deadline':
        return false;
      case 'event': {
        const { goal } = this.journey;
        if (goal && goalMet(goal, { event: input.event, context: this.ctx.context })) {
          this.finish('goal');
          return true;
        }
        if (w.kind !== 'event' || !eventMatchesName(w.eventName, input.event) || this.now < w.since)
          return false;
        this.leave('event', w.dueAt !== undefined);
        return true;
      }
      case 'timer':
        if (w.nodeId !== input.nodeId || w.visit !== input.visit) return false;
        if (w.kind === 'timer') this.leave(null, false);
        else if (w.kind === 'event' && w.dueAt !== undefined) this.leave('timeout', false);
        else return false;
        return true;
      case 'contentDone':
        if (w.kind !== 'content' || w.nodeId !== input.nodeId || w.visit !== input.visit) return false;
        this.leave(null, false);
        return true;
    }
  }

  private enter(): boolean {
    const { goal, trigger } = this.journey;
    if (goal?.deadline !== undefined) {
      this.state.deadlineAt = this.now + goal.deadline * DAY_MS;
      this.effects.push({ type: 'scheduleDeadline', dueAt: this.state.deadlineAt });
    }
    if (trigger === null) this.finish('dangling');
    else this.walk(trigger.id);
    return true;
  }

  /** Leaves the node waited at by the edge `label`, then walks on. */
  private leave(label: string | null, cancelTimer: boolean): void {
    const w = this.state.waiting!;
    if (cancelTimer) this.effects.push({ type: 'cancelTimer', nodeId: w.nodeId, visit: w.visit });
    this.state.waiting = null;
    const next = this.exit(w.nodeId, w.visit, label);
    if (next === undefined) this.finish('dangling');
    else this.walk(next);
  }

  /** Records leaving a node by `label` and returns the node that edge leads to, if there is one. */
  private exit(nodeId: string, visit: number, label: string | null): string | undefined {
    const edge = edgeFrom(this.journey, nodeId, label);
    const exited: Extract<EnrollmentEffect, { type: 'nodeExited' }> = {
      type: 'nodeExited',
      nodeId,
      visit,
      at: this.now,
    };
    if (label !== null) exited.edgeLabel = label;
    if (edge) exited.nextNodeId = edge.targetNodeId;
    this.effects.push(exited);
    return edge?.targetNodeId;
  }

  /**
   * Enters `nodeId` and goes on through the nodes that decide at once (TRIGGER, CONDITION, SPLIT,
   * GOAL_CHECK) until a node that waits (WAIT, WAIT_FOR_EVENT, CONTENT) or the end.
   */
  private walk(startId: string): void {
    const s = this.state;
    let id = startId;
    for (let steps = 0; ; steps++) {
      if (steps >= MAX_STEPS_PER_INPUT) {
        this.finish('step_limit');
        return;
      }
      const node = this.journey.nodes.get(id);
      if (node === undefined) {
        this.finish('dangling');
        return;
      }
      const visit = (s.visits[id] ?? 0) + 1;
      if (visit > MAX_VISITS_PER_NODE) {
        this.finish('visit_limit');
        return;
      }
      s.visits[id] = visit;
      s.currentNodeId = id;
      this.effects.push({ type: 'nodeEntered', nodeId: id, visit, at: this.now });
      if (this.waitAt(node, visit)) return;
      if (node.type === 'EXIT') {
        this.effects.push({ type: 'nodeExited', nodeId: id, visit, at: this.now });
        this.finish('exit');
        return;
      }
      const label = this.decide(node, visit);
      const next = label === undefined ? undefined : this.exit(id, visit, label);
      if (next === undefined) {
        if (label === undefined) this.effects.push({ type: 'nodeExited', nodeId: id, visit, at: this.now });
        this.finish('dangling');
        return;
      }
      id = next;
    }
  }

  /** Starts waiting when `node` is a waiting node; false otherwise. */
  private waitAt(node: JourneyNode, visit: number): boolean {
    const nodeId = node.id;
    const since = this.now;
    switch (node.type) {
      case 'WAIT': {
        const dueAt = since + node.config.duration;
        this.state.waiting = { kind: 'timer', nodeId, visit, since, dueAt };
        this.effects.push({ type: 'scheduleTimer', nodeId: node.id, visit, dueAt });
        return true;
      }
      case 'WAIT_FOR_EVENT': {
        const { eventName, timeout } = node.config;
        if (timeout === undefined) {
          this.state.waiting = { kind: 'event', nodeId, visit, since, eventName };
          return true;
        }
        const dueAt = since + timeout;
        this.state.waiting = { kind: 'event', nodeId, visit, since, eventName, dueAt };
        this.effects.push({ type: 'scheduleTimer', nodeId: node.id, visit, dueAt });
        return true;
      }
      case 'CONTENT': {
        const { contentType } = node.config;
        this.state.waiting = {
          kind: 'content',
          nodeId,
          visit,
          since,
          contentType,
          contentId: node.contentId,
        };
        this.effects.push({
          type: 'showContent',
          nodeId: node.id,
          visit,
          contentType,
          contentId: node.contentId,
        });
        return true;
      }
      default:
        return false;
    }
  }

  /** The label of the edge a deciding node takes (null: its unlabelled edge), or undefined for none. */
  private decide(node: JourneyNode, visit: number): string | null | undefined {
    switch (node.type) {
      case 'CONDITION':
        return matchesRules(node.config.ruleTree, this.ctx.context ?? {}) ? 'true' : 'false';
      case 'SPLIT':
        return chooseBranch(node.config.branches, splitBucket(this.ctx.enrollmentId, node.id, visit));
      case 'GOAL_CHECK': {
        if (!goalMetNow(this.journey.goal, this.ctx)) return 'not_met';
        if (this.state.goalMetAt === null) {
          this.state.goalMetAt = this.now;
          this.effects.push({ type: 'goalMet', nodeId: node.id, visit, at: this.now });
        }
        return 'met';
      }
      default:
        return null; // TRIGGER
    }
  }

  /** Ends the enrollment: leaves the node it waits at (cancelling its timer) and drops the deadline. */
  private finish(reason: FinishReason): void {
    const s = this.state;
    const w = s.waiting;
    if (w !== null) {
      if (w.kind !== 'content' && w.dueAt !== undefined) {
        this.effects.push({ type: 'cancelTimer', nodeId: w.nodeId, visit: w.visit });
      }
      this.effects.push({ type: 'nodeExited', nodeId: w.nodeId, visit: w.visit, at: this.now });
      s.waiting = null;
    }
    if (s.deadlineAt !== null && reason !== 'deadline') this.effects.push({ type: 'cancelDeadline' });
    s.status = statusFor(reason, s.goalMetAt);
    s.endedAt = this.now;
    this.effects.push({ type: 'finish', status: s.status, reason, at: this.now });
  }
}

/** The content an enrollment has due (the session lists it), or null. */
export function dueContent(state: EnrollmentState) {
  return state.status === 'in_progress' && state.waiting?.kind === 'content' ? state.waiting : null;
}

/**
 * Whether a step of `journey` can read the rule context (`StepContext.context`): a CONDITION
 * node, or an attribute_match goal (checked at GOAL_CHECK, and with each event). The timer job
 * reads end users' traits only for such journeys.
 */
export function readsContext(journey: CompiledJourney): boolean {
  if (journey.goal?.type === 'attribute_match') return true;
  for (const node of journey.nodes.values()) if (node.type === 'CONDITION') return true;
  return false;
}
