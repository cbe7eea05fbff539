import { describe, expect, it } from 'vitest';
import { CONTENT_ID, chain, edge, FLAG_RULE, node } from '../../../../test/helpers/journeys.js';
import type { RuleContext } from '../../../engine/rules.js';
import { compileJourney, type JourneyGraph } from './graph.js';
import {
  chooseBranch,
  DAY_MS,
  dueContent,
  type EnrollmentEffect,
  type EnrollmentInput,
  type EnrollmentState,
  effectKey,
  initialEnrollmentState,
  MAX_STEPS_PER_INPUT,
  MAX_VISITS_PER_NODE,
  type StepContext,
  type StepResult,
  splitBucket,
  step,
} from './machine.js';
import type { GoalConfig } from './schemas.js';
import type { JourneyEvent } from './triggers.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

/** Feeds inputs to one enrollment, keeping its state and the effects of the last step. */
function enrollment(graph: JourneyGraph, options: { id?: string; context?: RuleContext } = {}) {
  const journey = compileJourney(graph);
  let state: EnrollmentState = initialEnrollmentState();
  let now = T0;
  const all: EnrollmentEffect[] = [];
  const d = {
    get state() {
      return state;
    },
    context: options.context,
    all,
    /** Moves the clock forward by `ms`. */
    wait(ms: number) {
      now += ms;
      return d;
    },
    get now() {
      return now;
    },
    send(input: EnrollmentInput, ctx: Partial<StepContext> = {}): StepResult {
      const result = step(journey, state, input, {
        nowMs: now,
        enrollmentId: options.id ?? 'enrollment-1',
        ...(d.context ? { context: d.context } : {}),
        ...ctx,
      });
      state = result.state;
      all.push(...result.effects);
      return result;
    },
    enter: () => d.send({ type: 'enter' }),
    event: (event: JourneyEvent) => d.send({ type: 'event', event }),
    /** Fires the timer of the current wait. */
    fire() {
      const w = state.waiting!;
      return d.send({ type: 'timer', nodeId: w.nodeId, visit: w.visit });
    },
    /** Reports the due content done. */
    done() {
      const w = state.waiting!;
      return d.send({ type: 'contentDone', nodeId: w.nodeId, visit: w.visit });
    },
  };
  return d;
}

const custom = (name: string): JourneyEvent => ({ type: 'CUSTOM', name });
/** `type nodeId#visit` of the node effects, for compact path assertions. */
const trail = (effects: EnrollmentEffect[]) =>
  effects.map((e) => ('nodeId' in e ? `${e.type} ${e.nodeId}#${e.visit}` : `${e.type}`));
const exits = (effects: EnrollmentEffect[]) =>
  effects.flatMap((e) => (e.type === 'nodeExited' ? [`${e.nodeId}:${e.edgeLabel ?? '-'}`] : []));
const finishOf = (effects: EnrollmentEffect[]) => effects.find((e) => e.type === 'finish');

describe('enter', () => {
  it('passes the TRIGGER and stops at the first waiting node', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.wait('w', 5 * MIN), node.exit('x')],
      edges: chain('t', 'w', 'x'),
    });
    const r = e.enter();
    expect(r.applied).toBe(true);
    expect(r.effects).toEqual([
      { type: 'nodeEntered', nodeId: 't', visit: 1, at: T0 },
      { type: 'nodeExited', nodeId: 't', visit: 1, at: T0, nextNodeId: 'w' },
      { type: 'nodeEntered', nodeId: 'w', visit: 1, at: T0 },
      { type: 'scheduleTimer', nodeId: 'w', visit: 1, dueAt: T0 + 5 * MIN },
    ]);
    expect(r.state).toEqual({
      status: 'in_progress',
      currentNodeId: 'w',
      visits: { t: 1, w: 1 },
      waiting: { kind: 'timer', nodeId: 'w', visit: 1, since: T0, dueAt: T0 + 5 * MIN },
      deadlineAt: null,
      goalMetAt: null,
      endedAt: null,
    });
  });

  it('applies once: a second enter is a no-op', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.wait('w'), node.exit('x')],
      edges: chain('t', 'w', 'x'),
    });
    e.enter();
    const before = e.state;
    const again = e.enter();
    expect(again).toEqual({ state: before, effects: [], applied: false });
  });

  it('inputs before enter do nothing', () => {
    const e = enrollment({ nodes: [node.trigger('t'), node.exit('x')], edges: chain('t', 'x') });
    for (const input of [
      { type: 'stop' },
      { type: 'goal' },
      { type: 'deadline' },
      { type: 'event', event: custom('x') },
    ] as EnrollmentInput[]) {
      expect(e.send(input).applied).toBe(false);
    }
    expect(e.state).toEqual(initialEnrollmentState());
  });

  it('a journey without a TRIGGER ends at once as completed (dangling)', () => {
    const r = enrollment({ nodes: [node.exit('x')], edges: [] }).enter();
    expect(r.state.status).toBe('completed');
    expect(finishOf(r.effects)).toEqual({ type: 'finish', status: 'completed', reason: 'dangling', at: T0 });
  });
});

describe('EXIT and dangling paths', () => {
  it('EXIT completes the enrollment', () => {
    const e = enrollment({ nodes: [node.trigger('t'), node.exit('x')], edges: chain('t', 'x') });
    const r = e.enter();
    expect(trail(r.effects)).toEqual([
      'nodeEntered t#1',
      'nodeExited t#1',
      'nodeEntered x#1',
      'nodeExited x#1',
      'finish',
    ]);
    expect(finishOf(r.effects)).toEqual({ type: 'finish', status: 'completed', reason: 'exit', at: T0 });
    expect(r.state).toMatchObject({ status: 'completed', currentNodeId: 'x', waiting: null, endedAt: T0 });
  });

  it('a node without the edge it chose ends the enrollment completed (dangling)', () => {
    // CONDITION with only a `true` edge, user fails the rule
    const e = enrollment(
      {
        nodes: [node.trigger('t'), node.condition('if', FLAG_RULE), node.exit('x')],
        edges: [edge('t', 'if'), edge('if', 'x', 'true')],
      },
      { context: { traits: { flag: false } } },
    );
    const r = e.enter();
    expect(exits(r.effects)).toEqual(['t:-', 'if:false']);
    expect(finishOf(r.effects)).toMatchObject({ status: 'completed', reason: 'dangling' });
    expect(r.state.currentNodeId).toBe('if');
  });

  it('an edge to a node that is not there (canvas changed under the enrollment) ends it too', () => {
    const graph = { nodes: [node.trigger('t'), node.wait('w')], edges: [edge('t', 'w'), edge('w', 'gone')] };
    const e = enrollment(graph);
    e.enter();
    const r = e.fire();
    expect(trail(r.effects)).toEqual(['nodeExited w#1', 'finish']);
    expect(r.effects[0]).toMatchObject({ nextNodeId: 'gone' });
    expect(finishOf(r.effects)).toMatchObject({ status: 'completed', reason: 'dangling' });
  });

  it('a waited-at node that is gone from the canvas ends the enrollment when its input comes', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.wait('w'), node.exit('x')],
      edges: chain('t', 'w', 'x'),
    });
    e.enter();
    const edited = compileJourney({ nodes: [node.trigger('t'), node.exit('x')], edges: chain('t', 'x') });
    const r = step(
      edited,
      e.state,
      { type: 'timer', nodeId: 'w', visit: 1 },
      { nowMs: T0 + MIN, enrollmentId: 'e' },
    );
    expect(finishOf(r.effects)).toMatchObject({ status: 'completed', reason: 'dangling' });
  });
});

describe('WAIT', () => {
  const graph = {
    nodes: [node.trigger('t'), node.wait('w', 10 * MIN), node.exit('x')],
    edges: chain('t', 'w', 'x'),
  };

  it('advances when its timer fires, by the unlabelled edge', () => {
    const e = enrollment(graph);
    e.enter();
    const r = e.wait(10 * MIN).fire();
    expect(r.effects).toEqual([
      { type: 'nodeExited', nodeId: 'w', visit: 1, at: T0 + 10 * MIN, nextNodeId: 'x' },
      { type: 'nodeEntered', nodeId: 'x', visit: 1, at: T0 + 10 * MIN },
      { type: 'nodeExited', nodeId: 'x', visit: 1, at: T0 + 10 * MIN },
      { type: 'finish', status: 'completed', reason: 'exit', at: T0 + 10 * MIN },
    ]);
  });

  it('ignores events, content reports and timers of other nodes or visits', () => {
    const e = enrollment(graph);
    e.enter();
    const stale: EnrollmentInput[] = [
      { type: 'event', event: custom('anything') },
      { type: 'contentDone', nodeId: 'w', visit: 1 },
      { type: 'timer', nodeId: 'w', visit: 2 },
      { type: 'timer', nodeId: 'w', visit: 0 },
      { type: 'timer', nodeId: 'x', visit: 1 },
      { type: 'deadline' }, // no deadline set
    ];
    const before = e.state;
    for (const input of stale) expect(e.send(input)).toEqual({ state: before, effects: [], applied: false });
  });

  it('a timer fired again after it advanced is a no-op', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.wait('w', MIN), node.wait('w2', MIN), node.exit('x')],
      edges: chain('t', 'w', 'w2', 'x'),
    });
    e.enter();
    expect(e.wait(MIN).send({ type: 'timer', nodeId: 'w', visit: 1 }).applied).toBe(true);
    expect(e.send({ type: 'timer', nodeId: 'w', visit: 1 }).applied).toBe(false);
    expect(e.state.currentNodeId).toBe('w2');
  });
});

describe('WAIT_FOR_EVENT', () => {
  const graph = (timeout?: number): JourneyGraph => ({
    nodes: [
      node.trigger('t'),
      node.waitForEvent('wfe', 'paid', timeout),
      node.exit('got'),
      node.exit('late'),
    ],
    edges: [
      edge('t', 'wfe'),
      edge('wfe', 'got', 'event'),
      ...(timeout === undefined ? [] : [edge('wfe', 'late', 'timeout')]),
    ],
  });

  it('the event takes the `event` edge and cancels the timeout', () => {
    const e = enrollment(graph(DAY_MS));
    const entered = e.enter();
    expect(entered.effects).toContainEqual({
      type: 'scheduleTimer',
      nodeId: 'wfe',
      visit: 1,
      dueAt: T0 + DAY_MS,
    });
    expect(e.wait(MIN).event(custom('unpaid')).applied).toBe(false);
    const r = e.event(custom('paid'));
    expect(trail(r.effects)).toEqual([
      'cancelTimer wfe#1',
      'nodeExited wfe#1',
      'nodeEntered got#1',
      'nodeExited got#1',
      'finish',
    ]);
    expect(exits(r.effects)).toEqual(['wfe:event', 'got:-']);
    expect(e.state.currentNodeId).toBe('got');
    // the timer arriving afterwards changes nothing
    expect(e.send({ type: 'timer', nodeId: 'wfe', visit: 1 }).applied).toBe(false);
  });

  it('the timeout takes the `timeout` edge; the event afterwards is a no-op', () => {
    const e = enrollment(graph(DAY_MS));
    e.enter();
    const r = e.wait(DAY_MS).fire();
    expect(exits(r.effects)).toEqual(['wfe:timeout', 'late:-']);
    expect(r.effects.some((x) => x.type === 'cancelTimer')).toBe(false);
    expect(e.event(custom('paid')).applied).toBe(false);
  });

  it('without a timeout it schedules nothing and waits for the event only', () => {
    const e = enrollment(graph());
    const r = e.enter();
    expect(r.effects.some((x) => x.type === 'scheduleTimer')).toBe(false);
    expect(r.state.waiting).toEqual({ kind: 'event', nodeId: 'wfe', visit: 1, since: T0, eventName: 'paid' });
    expect(e.send({ type: 'timer', nodeId: 'wfe', visit: 1 }).applied).toBe(false);
    expect(exits(e.event(custom('paid')).effects)).toEqual(['wfe:event', 'got:-']);
  });

  it('matches built-in event types by name, too', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.waitForEvent('wfe', 'FLOW_COMPLETED'), node.exit('x')],
      edges: [edge('t', 'wfe'), edge('wfe', 'x', 'event')],
    });
    e.enter();
    expect(e.event({ type: 'FLOW_STARTED' }).applied).toBe(false);
    expect(e.event({ type: 'FLOW_COMPLETED', properties: { flowId: 'f' } }).applied).toBe(true);
  });

  it('an event from before the wait began does not end it', () => {
    const e = enrollment(graph());
    e.wait(DAY_MS).enter();
    expect(e.send({ type: 'event', event: custom('paid') }, { nowMs: T0 }).applied).toBe(false);
    expect(e.send({ type: 'event', event: custom('paid') }, { nowMs: T0 + DAY_MS }).applied).toBe(true);
  });
});

describe('CONTENT', () => {
  const graph = {
    nodes: [node.trigger('t'), node.content('c', CONTENT_ID, 'tooltip'), node.exit('x')],
    edges: chain('t', 'c', 'x'),
  };

  it('shows the content and waits until it is reported done for that visit', () => {
    const e = enrollment(graph);
    const r = e.enter();
    expect(r.effects).toContainEqual({
      type: 'showContent',
      nodeId: 'c',
      visit: 1,
      contentType: 'tooltip',
      contentId: CONTENT_ID,
    });
    expect(dueContent(e.state)).toEqual({
      kind: 'content',
      nodeId: 'c',
      visit: 1,
      since: T0,
      contentType: 'tooltip',
      contentId: CONTENT_ID,
    });
    expect(e.send({ type: 'contentDone', nodeId: 'c', visit: 2 }).applied).toBe(false);
    expect(e.send({ type: 'contentDone', nodeId: 'x', visit: 1 }).applied).toBe(false);
    expect(e.send({ type: 'timer', nodeId: 'c', visit: 1 }).applied).toBe(false);
    expect(e.event(custom('CONTENT_RENDERED')).applied).toBe(false);
    const done = e.done();
    expect(exits(done.effects)).toEqual(['c:-', 'x:-']);
    expect(dueContent(e.state)).toBe(null);
    expect(e.send({ type: 'contentDone', nodeId: 'c', visit: 1 }).applied).toBe(false);
  });
});

describe('CONDITION', () => {
  const graph = {
    nodes: [node.trigger('t'), node.condition('if', FLAG_RULE), node.exit('yes'), node.exit('no')],
    edges: [edge('t', 'if'), edge('if', 'yes', 'true'), edge('if', 'no', 'false')],
  };

  it('takes `true` when the rule holds on the current traits, `false` otherwise', () => {
    expect(exits(enrollment(graph, { context: { traits: { flag: true } } }).enter().effects)).toEqual([
      't:-',
      'if:true',
      'yes:-',
    ]);
    expect(exits(enrollment(graph, { context: { traits: { flag: false } } }).enter().effects)).toEqual([
      't:-',
      'if:false',
      'no:-',
    ]);
    // no context: every field is missing, so eq fails
    expect(exits(enrollment(graph).enter().effects)).toEqual(['t:-', 'if:false', 'no:-']);
  });

  it('reads the traits of the moment it is reached', () => {
    const e = enrollment(
      {
        nodes: [
          node.trigger('t'),
          node.wait('w'),
          node.condition('if', FLAG_RULE),
          node.exit('yes'),
          node.exit('no'),
        ],
        edges: [...chain('t', 'w', 'if'), edge('if', 'yes', 'true'), edge('if', 'no', 'false')],
      },
      { context: { traits: { flag: false } } },
    );
    e.enter();
    e.context = { traits: { flag: true } };
    expect(exits(e.fire().effects)).toEqual(['w:-', 'if:true', 'yes:-']);
  });
});

describe('SPLIT', () => {
  const branches = [
    { label: 'A', percentage: 20 },
    { label: 'B', percentage: 30 },
    { label: 'C', percentage: 50 },
  ];
  const graph = {
    nodes: [node.trigger('t'), node.split('s', branches), node.exit('a'), node.exit('b'), node.exit('c')],
    edges: [edge('t', 's'), edge('s', 'a', 'A'), edge('s', 'b', 'B'), edge('s', 'c', 'C')],
  };
  const labelFor = (id: string) =>
    enrollment(graph, { id })
      .enter()
      .effects.flatMap((e) => (e.type === 'nodeExited' && e.nodeId === 's' ? [e.edgeLabel] : []))[0];

  it('chooses by the cumulative percentage range holding the bucket', () => {
    expect(chooseBranch(branches, 0)).toBe('A');
    expect(chooseBranch(branches, 19)).toBe('A');
    expect(chooseBranch(branches, 20)).toBe('B');
    expect(chooseBranch(branches, 49)).toBe('B');
    expect(chooseBranch(branches, 50)).toBe('C');
    expect(chooseBranch(branches, 99)).toBe('C');
    expect(chooseBranch([{ label: 'Z', percentage: 0 }, ...branches], 0)).toBe('A');
    expect(chooseBranch([{ label: 'A', percentage: 60 }], 60)).toBeUndefined();
  });

  it('hashes enrollment, node and visit into 0..99, deterministically', () => {
    expect(splitBucket('e1', 's', 1)).toBe(splitBucket('e1', 's', 1));
    // sha256("e1\ns\n1") begins 6685bd4f: 0x6685bd4f % 100 = 83. Pinned, so that a change of
    // the hash (which would move running enrollments to other branches on replay) is noticed.
    expect(splitBucket('e1', 's', 1)).toBe(83);
    expect(splitBucket('e1', 's', 2)).not.toBe(splitBucket('e1', 's', 1));
    const buckets = new Set(Array.from({ length: 500 }, (_, i) => splitBucket(`e${i}`, 's', 1)));
    expect(buckets.size).toBeGreaterThan(90);
  });

  it('the same enrollment takes the same branch on a replay', () => {
    for (let i = 0; i < 20; i++) expect(labelFor(`enrollment-${i}`)).toBe(labelFor(`enrollment-${i}`));
    expect(labelFor('enrollment-7')).toBe(chooseBranch(branches, splitBucket('enrollment-7', 's', 1)));
  });

  it('spreads enrollments close to the percentages', () => {
    const counts: Record<string, number> = { A: 0, B: 0, C: 0 };
    const n = 4000;
    for (let i = 0; i < n; i++) counts[chooseBranch(branches, splitBucket(`enrollment-${i}`, 's', 1))!]!++;
    // binomial standard deviation at n = 4000 is under 1 percentage point; allow 3
    expect(Math.abs(counts.A! / n - 0.2)).toBeLessThan(0.03);
    expect(Math.abs(counts.B! / n - 0.3)).toBeLessThan(0.03);
    expect(Math.abs(counts.C! / n - 0.5)).toBeLessThan(0.03);
  });

  it('a 0% branch is never taken; percentages short of 100 leave some enrollments dangling', () => {
    for (let i = 0; i < 200; i++) {
      expect(
        chooseBranch(
          [
            { label: 'never', percentage: 0 },
            { label: 'all', percentage: 100 },
          ],
          splitBucket(`e${i}`, 's', 1),
        ),
      ).toBe('all');
    }
    const short = {
      nodes: [
        node.trigger('t'),
        node.split('s', [
          { label: 'A', percentage: 0 },
          { label: 'B', percentage: 0 },
        ]),
        node.exit('a'),
      ],
      edges: [edge('t', 's'), edge('s', 'a', 'A'), edge('s', 'a', 'B')],
    };
    const r = enrollment(short).enter();
    expect(finishOf(r.effects)).toMatchObject({ status: 'completed', reason: 'dangling' });
    expect(r.effects).toContainEqual({ type: 'nodeExited', nodeId: 's', visit: 1, at: T0 });
  });
});

describe('GOAL_CHECK', () => {
  const graph = (goalConfig: GoalConfig | null): JourneyGraph => ({
    nodes: [node.trigger('t'), node.goalCheck('g'), node.wait('w'), node.exit('no')],
    edges: [edge('t', 'g'), edge('g', 'w', 'met'), edge('g', 'no', 'not_met'), edge('w', 'no')],
    goalConfig,
  });
  const attributeGoal: GoalConfig = {
    type: 'attribute_match',
    config: { ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' } },
  };

  it('attribute_match goals are checked on the current traits', () => {
    const met = enrollment(graph(attributeGoal), { context: { traits: { plan: 'pro' } } }).enter();
    expect(exits(met.effects)).toEqual(['t:-', 'g:met']);
    const notMet = enrollment(graph(attributeGoal), { context: { traits: { plan: 'free' } } }).enter();
    expect(exits(notMet.effects)).toEqual(['t:-', 'g:not_met', 'no:-']);
    expect(notMet.state.status).toBe('completed');
  });

  it('met: records the goal, follows `met`, and the enrollment ends goal_reached (not completed)', () => {
    const e = enrollment(graph(attributeGoal), { context: { traits: { plan: 'pro' } } });
    const r = e.enter();
    expect(r.effects).toContainEqual({ type: 'goalMet', nodeId: 'g', visit: 1, at: T0 });
    expect(e.state).toMatchObject({ status: 'in_progress', goalMetAt: T0, currentNodeId: 'w' });
    const end = e.wait(MIN).fire();
    expect(finishOf(end.effects)).toEqual({
      type: 'finish',
      status: 'goal_reached',
      reason: 'exit',
      at: T0 + MIN,
    });
  });

  it('event goals count as not met at GOAL_CHECK unless the caller says otherwise', () => {
    const goal: GoalConfig = { type: 'event', config: { eventName: 'paid' } };
    expect(exits(enrollment(graph(goal)).enter().effects)).toEqual(['t:-', 'g:not_met', 'no:-']);
    const asked: GoalConfig[] = [];
    const e = enrollment(graph(goal));
    const r = e.send(
      { type: 'enter' },
      {
        goalMet: (g) => {
          asked.push(g);
          return true;
        },
      },
    );
    expect(asked).toEqual([goal]);
    expect(exits(r.effects)).toEqual(['t:-', 'g:met']);
  });

  it('without a goal it is never met', () => {
    expect(exits(enrollment(graph(null)).enter().effects)).toEqual(['t:-', 'g:not_met', 'no:-']);
  });
});

describe('the goal at any time', () => {
  const FLOW = '0190a2b4-1c2d-7e8f-9a0b-00000000f10f';
  const graph = (goalConfig: GoalConfig): JourneyGraph => ({
    nodes: [node.trigger('t'), node.waitForEvent('wfe', 'e1', DAY_MS), node.exit('x')],
    edges: [edge('t', 'wfe'), edge('wfe', 'x', 'event'), edge('wfe', 'x', 'timeout')],
    goalConfig,
  });
  const cases: { goal: GoalConfig; hit: JourneyEvent; miss: JourneyEvent; context?: RuleContext }[] = [
    { goal: { type: 'event', config: { eventName: 'paid' } }, hit: custom('paid'), miss: custom('unpaid') },
    {
      goal: { type: 'page_visit', config: { pattern: '/billing' } },
      hit: { type: 'PAGE_VIEW', url: 'https://a.example/billing' },
      miss: { type: 'PAGE_VIEW', url: 'https://a.example/home' },
    },
    {
      goal: { type: 'flow_completed', config: { flowId: FLOW } },
      hit: { type: 'FLOW_COMPLETED', properties: { flowId: FLOW } },
      miss: { type: 'FLOW_COMPLETED', properties: { flowId: 'other' } },
    },
  ];

  it.each(cases)(
    '$goal.type: a matching event ends the enrollment goal_reached, wherever it waits',
    ({ goal, hit, miss }) => {
      const e = enrollment(graph(goal));
      e.enter();
      expect(e.wait(MIN).event(miss).applied).toBe(false);
      const r = e.event(hit);
      expect(trail(r.effects)).toEqual(['cancelTimer wfe#1', 'nodeExited wfe#1', 'finish']);
      expect(finishOf(r.effects)).toEqual({
        type: 'finish',
        status: 'goal_reached',
        reason: 'goal',
        at: T0 + MIN,
      });
      expect(e.state).toMatchObject({
        status: 'goal_reached',
        waiting: null,
        currentNodeId: 'wfe',
        endedAt: T0 + MIN,
      });
    },
  );

  it('attribute_match: any event checks the goal against the traits of the moment', () => {
    const goal: GoalConfig = {
      type: 'attribute_match',
      config: { ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' } },
    };
    const e = enrollment(graph(goal), { context: { traits: { plan: 'free' } } });
    e.enter();
    expect(e.event(custom('whatever')).applied).toBe(false);
    e.context = { traits: { plan: 'pro' } };
    expect(finishOf(e.event({ type: 'IDENTIFY' }).effects)).toMatchObject({
      status: 'goal_reached',
      reason: 'goal',
    });
  });

  it('the goal wins over the wait the same event would end', () => {
    const e = enrollment(graph({ type: 'event', config: { eventName: 'e1' } }));
    e.enter();
    expect(finishOf(e.event(custom('e1')).effects)).toMatchObject({ status: 'goal_reached' });
  });

  it('a `goal` input ends any in-progress enrollment goal_reached', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.content('c'), node.exit('x')],
      edges: chain('t', 'c', 'x'),
    });
    e.enter();
    const r = e.send({ type: 'goal' });
    expect(trail(r.effects)).toEqual(['nodeExited c#1', 'finish']);
    expect(r.state.status).toBe('goal_reached');
    expect(dueContent(r.state)).toBe(null);
  });
});

describe('deadline', () => {
  const graph: JourneyGraph = {
    nodes: [node.trigger('t'), node.wait('w', 10 * DAY_MS), node.exit('x')],
    edges: chain('t', 'w', 'x'),
    goalConfig: { type: 'event', config: { eventName: 'paid' }, deadline: 3 },
  };

  it('is scheduled at enrollment, deadline days ahead', () => {
    const e = enrollment(graph);
    const r = e.enter();
    expect(r.effects[0]).toEqual({ type: 'scheduleDeadline', dueAt: T0 + 3 * DAY_MS });
    expect(r.state.deadlineAt).toBe(T0 + 3 * DAY_MS);
  });

  it('abandons the enrollment when it fires', () => {
    const e = enrollment(graph);
    e.enter();
    const r = e.wait(3 * DAY_MS).send({ type: 'deadline' });
    expect(trail(r.effects)).toEqual(['cancelTimer w#1', 'nodeExited w#1', 'finish']);
    expect(finishOf(r.effects)).toEqual({
      type: 'finish',
      status: 'abandoned',
      reason: 'deadline',
      at: T0 + 3 * DAY_MS,
    });
  });

  it('a passed deadline wins over any later input, a goal event included', () => {
    const e = enrollment(graph);
    e.enter();
    const r = e.wait(3 * DAY_MS + 1).event(custom('paid'));
    expect(finishOf(r.effects)).toMatchObject({ status: 'abandoned', reason: 'deadline' });
    const f = enrollment(graph);
    f.enter();
    expect(finishOf(f.wait(10 * DAY_MS).fire().effects)).toMatchObject({ status: 'abandoned' });
  });

  it('the goal met before the deadline ends it goal_reached, and cancels the deadline', () => {
    const e = enrollment(graph);
    e.enter();
    const r = e.wait(3 * DAY_MS - 1).event(custom('paid'));
    expect(trail(r.effects)).toEqual(['cancelTimer w#1', 'nodeExited w#1', 'cancelDeadline', 'finish']);
    expect(finishOf(r.effects)).toMatchObject({ status: 'goal_reached' });
    expect(e.send({ type: 'deadline' }).applied).toBe(false);
  });

  it('does not abandon an enrollment whose goal a GOAL_CHECK found met', () => {
    const e = enrollment(
      {
        nodes: [node.trigger('t'), node.goalCheck('g'), node.wait('w', 10 * DAY_MS), node.exit('x')],
        edges: [edge('t', 'g'), edge('g', 'w', 'met'), edge('g', 'x', 'not_met'), edge('w', 'x')],
        goalConfig: { type: 'attribute_match', config: { ruleTree: FLAG_RULE }, deadline: 1 },
      },
      { context: { traits: { flag: true } } },
    );
    e.enter();
    expect(e.wait(2 * DAY_MS).send({ type: 'deadline' }).applied).toBe(false);
    expect(finishOf(e.wait(10 * DAY_MS).fire().effects)).toMatchObject({
      status: 'goal_reached',
      reason: 'exit',
    });
  });
});

describe('stop', () => {
  it('stops an in-progress enrollment and cancels what it waits for', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.waitForEvent('wfe', 'e', DAY_MS), node.exit('x')],
      edges: [edge('t', 'wfe'), edge('wfe', 'x', 'event'), edge('wfe', 'x', 'timeout')],
      goalConfig: { type: 'event', config: { eventName: 'paid' }, deadline: 2 },
    });
    e.enter();
    const r = e.send({ type: 'stop' });
    expect(trail(r.effects)).toEqual(['cancelTimer wfe#1', 'nodeExited wfe#1', 'cancelDeadline', 'finish']);
    expect(r.state.status).toBe('stopped');
  });

  it('after the end every input is a no-op', () => {
    const e = enrollment({
      nodes: [node.trigger('t'), node.wait('w'), node.exit('x')],
      edges: chain('t', 'w', 'x'),
    });
    e.enter();
    e.send({ type: 'stop' });
    const ended = e.state;
    for (const input of [
      { type: 'stop' },
      { type: 'goal' },
      { type: 'deadline' },
      { type: 'enter' },
      { type: 'timer', nodeId: 'w', visit: 1 },
      { type: 'event', event: custom('x') },
    ] as EnrollmentInput[]) {
      expect(e.send(input)).toEqual({ state: ended, effects: [], applied: false });
    }
  });
});

describe('loops, bounds and keys', () => {
  it('a loop through a WAIT counts visits, and every effect key is new', () => {
    const graph = {
      nodes: [
        node.trigger('t'),
        node.content('c'),
        node.wait('w'),
        node.condition('again', FLAG_RULE),
        node.exit('x'),
      ],
      edges: [...chain('t', 'c', 'w', 'again'), edge('again', 'c', 'true'), edge('again', 'x', 'false')],
    };
    const e = enrollment(graph, { context: { traits: { flag: true } } });
    e.enter();
    for (let i = 0; i < 3; i++) {
      e.done();
      e.wait(MIN).fire();
    }
    expect(e.state.visits).toEqual({ t: 1, c: 4, w: 3, again: 3 });
    expect(e.state.waiting).toMatchObject({ kind: 'content', nodeId: 'c', visit: 4 });
    // a report for an earlier showing of the same content does nothing
    expect(e.send({ type: 'contentDone', nodeId: 'c', visit: 3 }).applied).toBe(false);
    const keys = e.all.map(effectKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a cycle without a wait (never published) is cut by the step bound', () => {
    const graph = {
      nodes: [node.trigger('t'), node.condition('a', FLAG_RULE), node.condition('b', FLAG_RULE)],
      edges: [
        edge('t', 'a'),
        edge('a', 'b', 'true'),
        edge('a', 'b', 'false'),
        edge('b', 'a', 'true'),
        edge('b', 'a', 'false'),
      ],
    };
    const r = enrollment(graph).enter();
    expect(r.effects.filter((e) => e.type === 'nodeEntered')).toHaveLength(MAX_STEPS_PER_INPUT);
    expect(finishOf(r.effects)).toMatchObject({ status: 'completed', reason: 'step_limit' });
  });

  it('a node visited more than the limit ends the enrollment', () => {
    const graph = { nodes: [node.trigger('t'), node.wait('w')], edges: [edge('t', 'w'), edge('w', 'w')] };
    const e = enrollment(graph);
    e.enter();
    for (let i = 1; i < MAX_VISITS_PER_NODE; i++) expect(e.wait(MIN).fire().state.status).toBe('in_progress');
    expect(e.state.visits.w).toBe(MAX_VISITS_PER_NODE);
    const r = e.wait(MIN).fire();
    expect(finishOf(r.effects)).toMatchObject({ status: 'completed', reason: 'visit_limit' });
  });

  it('effect keys are type, node and visit (or the type for enrollment-wide effects)', () => {
    expect(effectKey({ type: 'scheduleTimer', nodeId: 'n', visit: 3, dueAt: 1 })).toBe('scheduleTimer:n:3');
    expect(effectKey({ type: 'finish', status: 'stopped', reason: 'stop', at: 1 })).toBe('finish');
    expect(effectKey({ type: 'scheduleDeadline', dueAt: 1 })).toBe('scheduleDeadline');
  });

  it('does not mutate the state it is given', () => {
    const journey = compileJourney({
      nodes: [node.trigger('t'), node.wait('w'), node.exit('x')],
      edges: chain('t', 'w', 'x'),
    });
    const start = initialEnrollmentState();
    const entered = step(journey, start, { type: 'enter' }, { nowMs: T0, enrollmentId: 'e' });
    expect(start).toEqual(initialEnrollmentState());
    const snapshot = structuredClone(entered.state);
    step(journey, entered.state, { type: 'timer', nodeId: 'w', visit: 1 }, { nowMs: T0, enrollmentId: 'e' });
    expect(entered.state).toEqual(snapshot);
  });

  it('the state survives a JSON round trip (the durable layer stores it so)', () => {
    const journey = compileJourney({
      nodes: [node.trigger('t'), node.wait('w'), node.exit('x')],
      edges: chain('t', 'w', 'x'),
    });
    const { state } = step(
      journey,
      initialEnrollmentState(),
      { type: 'enter' },
      { nowMs: T0, enrollmentId: 'e' },
    );
    const stored = JSON.parse(JSON.stringify(state)) as EnrollmentState;
    expect(stored).toEqual(state);
    expect(
      step(journey, stored, { type: 'timer', nodeId: 'w', visit: 1 }, { nowMs: T0, enrollmentId: 'e' }).state
        .status,
    ).toBe('completed');
  });
});
