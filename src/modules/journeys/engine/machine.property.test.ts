import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_ID, edge, FLAG_RULE, node, validGraphArb } from '../../../../test/helpers/journeys.js';
import { compileJourney, exitLabels, type JourneyGraph } from './graph.js';
import {
  DAY_MS,
  type EnrollmentEffect,
  type EnrollmentInput,
  type EnrollmentState,
  effectKey,
  initialEnrollmentState,
  MAX_STEPS_PER_INPUT,
  readsContext,
  type StepContext,
  type StepResult,
  step,
} from './machine.js';
import type { JourneyNode } from './schemas.js';
import { validateForPublish } from './validate.js';

/**
 * Random journeys and random input sequences. Inputs are drawn symbolically ("fire the current
 * timer", "a stale timer of node 3, visit 2", "event e1") and resolved against the state as the
 * run goes, so that the sequences reach deep into the graph rather than being mostly no-ops.
 */

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

type Sym =
  | { k: 'fire' }
  | { k: 'done' }
  | { k: 'staleTimer'; node: number; visit: number }
  | { k: 'staleDone'; node: number; visit: number }
  | { k: 'event'; name: string }
  | { k: 'flowCompleted' }
  | { k: 'goal' }
  | { k: 'deadline' }
  | { k: 'stop' };

interface Move {
  sym: Sym;
  /** Time passing before the input. */
  dt: number;
  traits: { flag: boolean; goal: boolean };
}

const moveArb: fc.Arbitrary<Move> = fc.record({
  sym: fc.oneof(
    { weight: 6, arbitrary: fc.constant<Sym>({ k: 'fire' }) },
    { weight: 5, arbitrary: fc.constant<Sym>({ k: 'done' }) },
    {
      weight: 5,
      arbitrary: fc.constantFrom('e1', 'e2', 'goal', 'other').map<Sym>((name) => ({ k: 'event', name })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ node: fc.nat(), visit: fc.integer({ min: 0, max: 4 }) })
        .map<Sym>((x) => ({ k: 'staleTimer', ...x })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ node: fc.nat(), visit: fc.integer({ min: 0, max: 4 }) })
        .map<Sym>((x) => ({ k: 'staleDone', ...x })),
    },
    { weight: 1, arbitrary: fc.constant<Sym>({ k: 'flowCompleted' }) },
    { weight: 1, arbitrary: fc.constantFrom<Sym>({ k: 'goal' }, { k: 'deadline' }, { k: 'stop' }) },
  ),
  dt: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 3 * HOUR }),
    fc.integer({ min: 0, max: 2 * DAY_MS }),
  ),
  traits: fc.record({ flag: fc.boolean(), goal: fc.boolean() }),
});

function resolve(sym: Sym, state: EnrollmentState, nodes: readonly JourneyNode[]): EnrollmentInput {
  const w = state.waiting;
  const nodeAt = (i: number) => nodes[i % nodes.length]!.id;
  switch (sym.k) {
    case 'fire':
      return w
        ? { type: 'timer', nodeId: w.nodeId, visit: w.visit }
        : { type: 'timer', nodeId: nodeAt(0), visit: 1 };
    case 'done':
      return w
        ? { type: 'contentDone', nodeId: w.nodeId, visit: w.visit }
        : { type: 'contentDone', nodeId: nodeAt(0), visit: 1 };
    case 'staleTimer':
      return { type: 'timer', nodeId: nodeAt(sym.node), visit: sym.visit };
    case 'staleDone':
      return { type: 'contentDone', nodeId: nodeAt(sym.node), visit: sym.visit };
    case 'event':
      return { type: 'event', event: { type: 'CUSTOM', name: sym.name } };
    case 'flowCompleted':
      return { type: 'event', event: { type: 'FLOW_COMPLETED', properties: { flowId: CONTENT_ID } } };
    default:
      return { type: sym.k };
  }
}

interface Traced {
  input: EnrollmentInput;
  ctx: StepContext;
  before: EnrollmentState;
  result: StepResult;
}

function run(graph: JourneyGraph, moves: readonly Move[], enrollmentId = 'enrollment-under-test'): Traced[] {
  const journey = compileJourney(graph);
  let state = initialEnrollmentState();
  let now = T0;
  const trace: Traced[] = [];
  const send = (input: EnrollmentInput, traits: Move['traits']) => {
    const ctx: StepContext = { nowMs: now, enrollmentId, context: { traits } };
    const result = step(journey, state, input, ctx);
    trace.push({ input, ctx, before: state, result });
    state = result.state;
  };
  send({ type: 'enter' }, { flag: false, goal: false });
  for (const move of moves) {
    now += move.dt;
    send(resolve(move.sym, state, graph.nodes), move.traits);
  }
  return trace;
}

const WAIT_KIND = { WAIT: 'timer', WAIT_FOR_EVENT: 'event', CONTENT: 'content' } as const;
const timerKey = (nodeId: string, visit: number) => `${nodeId}#${visit}`;

/** Every invariant of one run; throws (node:assert, far cheaper than expect in a hot loop) at the first broken one. */
function checkRun(graph: JourneyGraph, trace: Traced[], validGraph: boolean): void {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const seenKeys = new Map<string, EnrollmentEffect>();
  const liveTimers = new Set<string>();
  let occupied = 0;
  let finished = false;
  let deadlineScheduled = false;
  let deadlineSettled = false;

  for (const { input, before, result } of trace) {
    const { state, effects, applied } = result;

    if (!applied) {
      assert.deepEqual(effects, []);
      assert.equal(state, before);
    }
    if (finished) assert.equal(applied, false);

    // Step bound: in a valid graph each node at most once a step; in any graph the global bound.
    const entered = effects.filter((e) => e.type === 'nodeEntered');
    assert.ok(entered.length <= MAX_STEPS_PER_INPUT);
    if (validGraph) assert.equal(new Set(entered.map((e) => e.nodeId)).size, entered.length);

    effects.forEach((effect, i) => {
      const key = effectKey(effect);
      assert.equal(seenKeys.has(key), false, `effect ${key} emitted twice`);
      seenKeys.set(key, effect);
      if ('nodeId' in effect) assert.equal(nodes.has(effect.nodeId), true);
      switch (effect.type) {
        case 'nodeEntered':
          occupied++;
          break;
        case 'nodeExited': {
          occupied--;
          const source = nodes.get(effect.nodeId)!;
          if (effect.edgeLabel !== undefined) assert.ok(exitLabels(source).includes(effect.edgeLabel));
          // the edge taken leads to the next node entered (unless that node is missing, or a
          // bound ends the enrollment right there)
          const next = effects.slice(i + 1).find((e) => e.type !== 'cancelDeadline');
          if (effect.nextNodeId !== undefined && nodes.has(effect.nextNodeId)) {
            if (next?.type === 'finish') assert.ok(['step_limit', 'visit_limit'].includes(next.reason));
            else
              assert.deepEqual(
                [next?.type, next && 'nodeId' in next ? next.nodeId : undefined],
                ['nodeEntered', effect.nextNodeId],
              );
          }
          break;
        }
        case 'scheduleTimer':
          liveTimers.add(timerKey(effect.nodeId, effect.visit));
          break;
        case 'cancelTimer':
          assert.equal(liveTimers.delete(timerKey(effect.nodeId, effect.visit)), true);
          break;
        case 'showContent':
          assert.equal(nodes.get(effect.nodeId)!.type, 'CONTENT');
          break;
        case 'goalMet':
          assert.equal(nodes.get(effect.nodeId)!.type, 'GOAL_CHECK');
          break;
        case 'scheduleDeadline':
          deadlineScheduled = true;
          break;
        case 'cancelDeadline':
          assert.equal(deadlineScheduled, true);
          deadlineSettled = true;
          break;
        case 'finish':
          assert.equal(i, effects.length - 1);
          assert.equal(effect.status, state.status);
          finished = true;
          if (effect.reason === 'deadline') deadlineSettled = true;
          break;
      }
    });
    // A fired timer is consumed by the step it drove.
    if (applied && input.type === 'timer') liveTimers.delete(timerKey(input.nodeId, input.visit));

    // Exactly one of: in progress waiting at one node, or ended in one terminal status.
    if (state.status === 'in_progress') {
      const w = state.waiting;
      assert.notEqual(w, null);
      assert.equal(occupied, 1);
      assert.equal(state.currentNodeId, w!.nodeId);
      assert.equal(state.visits[w!.nodeId], w!.visit);
      assert.equal(WAIT_KIND[nodes.get(w!.nodeId)!.type as keyof typeof WAIT_KIND], w!.kind);
      assert.equal(state.endedAt, null);
      // the only timer alive is the one of the current wait
      const dueAt = w!.kind === 'content' ? undefined : w!.dueAt;
      assert.deepEqual([...liveTimers], dueAt === undefined ? [] : [timerKey(w!.nodeId, w!.visit)]);
    } else {
      assert.equal(state.waiting, null);
      assert.equal(occupied, 0);
      assert.equal(finished, true);
      assert.notEqual(state.endedAt, null);
      assert.equal(liveTimers.size, 0);
      if (deadlineScheduled) assert.equal(deadlineSettled, true);
    }
  }
}

const strip = (trace: Traced[]) => trace.map(({ input, result }) => ({ input, result }));

describe('enrollment machine on random valid journeys', () => {
  it('is waiting at exactly one node or ended in exactly one status after every input', () => {
    fc.assert(
      fc.property(validGraphArb, fc.array(moveArb, { maxLength: 40 }), (graph, moves) => {
        expect(validateForPublish(graph, { contentExists: () => true })).toEqual([]);
        checkRun(graph, run(graph, moves), true);
      }),
      { numRuns: 1000 },
    );
  });

  it('replaying the same inputs gives the same states and effects', () => {
    fc.assert(
      fc.property(validGraphArb, fc.array(moveArb, { maxLength: 30 }), fc.uuid(), (graph, moves, id) => {
        const first = run(graph, moves, id);
        const again = run(graph, moves, id);
        expect(strip(again)).toEqual(strip(first));
        // and the concrete inputs alone reproduce it, from a fresh compile
        const journey = compileJourney(structuredClone(graph));
        let state = initialEnrollmentState();
        for (const t of first) {
          const r = step(journey, state, t.input, t.ctx);
          expect(r).toEqual(t.result);
          state = r.state;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a journey that does not read the context (readsContext false) steps alike without it', () => {
    let checked = 0;
    fc.assert(
      fc.property(validGraphArb, fc.array(moveArb, { maxLength: 30 }), (graph, moves) => {
        const journey = compileJourney(graph);
        const reads = readsContext(journey);
        const hasCondition = graph.nodes.some((n) => n.type === 'CONDITION');
        expect(reads).toBe(hasCondition || graph.goalConfig?.type === 'attribute_match');
        if (reads) return;
        checked++;
        let state = initialEnrollmentState();
        for (const t of run(graph, moves)) {
          const { context: _, ...without } = t.ctx;
          const r = step(journey, state, t.input, without);
          expect(r).toEqual(t.result);
          state = r.state;
        }
      }),
      { numRuns: 300 },
    );
    expect(checked).toBeGreaterThan(20);
  });

  it('reaches every kind of ending', () => {
    // Not a property: a check that the generators above are not vacuous.
    const reasons = new Set<string>();
    const statuses = new Set<string>();
    fc.assert(
      fc.property(validGraphArb, fc.array(moveArb, { maxLength: 40 }), (graph, moves) => {
        for (const t of run(graph, moves)) {
          for (const e of t.result.effects) {
            if (e.type === 'finish') {
              reasons.add(e.reason);
              statuses.add(e.status);
            }
          }
        }
      }),
      { numRuns: 500, seed: 42 },
    );
    expect([...statuses].sort()).toEqual(['abandoned', 'completed', 'goal_reached', 'stopped']);
    expect([...reasons].sort()).toEqual(['deadline', 'exit', 'goal', 'stop']);
  });
});

// ---- any graph at all (never validated): the guards hold -------------------------------------

const anyNodeArb = (id: string): fc.Arbitrary<JourneyNode> =>
  fc.constantFrom(
    node.content(id),
    node.wait(id, HOUR),
    node.waitForEvent(id, 'e1'),
    node.waitForEvent(id, 'e2', HOUR),
    node.condition(id, FLAG_RULE),
    node.split(id, [
      { label: 'b0', percentage: 30 },
      { label: 'b1', percentage: 40 },
    ]),
    node.goalCheck(id),
    node.exit(id),
  );

const anyGraphArb: fc.Arbitrary<JourneyGraph> = fc
  .integer({ min: 1, max: 8 })
  .chain((n) =>
    fc.record({
      rest: fc.tuple(...Array.from({ length: n }, (_, i) => anyNodeArb(`n${i + 1}`))),
      edges: fc.array(
        fc.record({
          source: fc.integer({ min: 0, max: n + 1 }),
          target: fc.integer({ min: 0, max: n + 1 }),
          label: fc.constantFrom(
            undefined,
            'true',
            'false',
            'met',
            'not_met',
            'event',
            'timeout',
            'b0',
            'b1',
          ),
        }),
        { maxLength: 3 * n },
      ),
      withTrigger: fc.boolean(),
    }),
  )
  .map(({ rest, edges, withTrigger }) => ({
    // ids n0..n<k>, and n<k+1> names no node: edges to it dangle
    nodes: withTrigger ? [node.trigger('n0'), ...rest] : rest,
    edges: edges.map((e) => edge(`n${e.source}`, `n${e.target}`, e.label)),
    goalConfig: {
      type: 'attribute_match',
      config: { ruleTree: { field: 'traits.goal', operator: 'eq', value: true } },
      deadline: 1,
    },
  }));

describe('enrollment machine on arbitrary graphs', () => {
  it('never throws, never holds two nodes, and keeps the step bound', () => {
    fc.assert(
      fc.property(anyGraphArb, fc.array(moveArb, { maxLength: 25 }), (graph, moves) => {
        checkRun(graph, run(graph, moves), false);
      }),
      { numRuns: 1000 },
    );
  });
});
