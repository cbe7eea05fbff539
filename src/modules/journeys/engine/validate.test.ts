import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_ID,
  chain,
  edge,
  FLAG_RULE,
  node,
  validGraphArb,
} from '../../../../test/helpers/journeys.js';
import type { JourneyGraph } from './graph.js';
import type { GoalConfig } from './schemas.js';
import { type PublishChecks, validateForPublish } from './validate.js';

const GOAL: GoalConfig = { type: 'event', config: { eventName: 'paid' } };
const allContent: PublishChecks = { contentExists: () => true };
const check = (graph: JourneyGraph, checks = allContent) => validateForPublish(graph, checks);

describe('validateForPublish', () => {
  it('accepts a journey using every node type and edge label', () => {
    const graph: JourneyGraph = {
      nodes: [
        node.trigger('t'),
        node.content('c'),
        node.wait('w'),
        node.waitForEvent('wfe', 'paid', 86_400_000),
        node.condition('if', FLAG_RULE),
        node.split('ab', [
          { label: 'A', percentage: 30 },
          { label: 'B', percentage: 70 },
        ]),
        node.goalCheck('g'),
        node.waitForEvent('wfe2', 'seen'),
        node.exit('x'),
      ],
      edges: [
        ...chain('t', 'c', 'w', 'wfe'),
        edge('wfe', 'if', 'event'),
        edge('wfe', 'x', 'timeout'),
        edge('if', 'ab', 'true'),
        edge('if', 'g', 'false'),
        edge('ab', 'x', 'A'),
        edge('ab', 'wfe2', 'B'),
        edge('wfe2', 'x', 'event'),
        edge('g', 'x', 'met'),
        edge('g', 'w', 'not_met'), // a loop back through a WAIT
      ],
      goalConfig: GOAL,
    };
    expect(check(graph)).toEqual([]);
  });

  it('needs exactly one TRIGGER', () => {
    expect(check({ nodes: [node.exit('x')], edges: [] })).toEqual([
      { path: 'nodes', message: 'a journey needs exactly one TRIGGER node' },
    ]);
    const two = {
      nodes: [node.trigger('t1'), node.exit('x'), node.trigger('t2')],
      edges: [edge('t1', 'x'), edge('t2', 'x')],
    };
    expect(check(two)).toEqual([
      { path: 'nodes[2]', nodeId: 't2', message: 'a journey has exactly one TRIGGER; this is another' },
      { path: 'nodes[2]', nodeId: 't2', message: 'not reachable from the TRIGGER' },
    ]);
  });

  it('needs every node reachable from the TRIGGER', () => {
    const graph = {
      nodes: [node.trigger('t'), node.exit('x'), node.wait('lost'), node.exit('x2')],
      edges: [edge('t', 'x'), edge('lost', 'x2')],
    };
    expect(check(graph)).toEqual([
      { path: 'nodes[2]', nodeId: 'lost', message: 'not reachable from the TRIGGER' },
      { path: 'nodes[3]', nodeId: 'x2', message: 'not reachable from the TRIGGER' },
    ]);
  });

  it('needs CONTENT nodes to point at existing content (asked of the caller with type and id)', () => {
    const asked: [string, string][] = [];
    const graph = {
      nodes: [node.trigger('t'), node.content('c', CONTENT_ID, 'tooltip'), node.exit('x')],
      edges: chain('t', 'c', 'x'),
    };
    const issues = check(graph, {
      contentExists: (type, id) => {
        asked.push([type, id]);
        return false;
      },
    });
    expect(asked).toEqual([['tooltip', CONTENT_ID]]);
    expect(issues).toEqual([
      { path: 'nodes[1]', nodeId: 'c', message: `tooltip ${CONTENT_ID} does not exist or is archived` },
    ]);
  });

  it('needs edges to point at nodes of the journey, and none into the TRIGGER', () => {
    const graph = {
      nodes: [node.trigger('t'), node.wait('w'), node.exit('x')],
      edges: [...chain('t', 'w', 'x'), edge('ghost', 'x'), edge('w', 'nowhere'), edge('w', 't')],
    };
    expect(check(graph)).toEqual([
      { path: 'edges[2]', message: 'sourceNodeId ghost is not a node of this journey' },
      { path: 'edges[3]', message: 'targetNodeId nowhere is not a node of this journey' },
      { path: 'edges[4]', message: 'no edge may lead into the TRIGGER' },
      { path: 'edges[4]', message: 'another unlabelled edge leaves the same WAIT' },
    ]);
  });

  it('TRIGGER, CONTENT and WAIT need exactly one unlabelled edge', () => {
    for (const middle of [node.content('m'), node.wait('m')]) {
      const missing = { nodes: [node.trigger('t'), middle, node.exit('x')], edges: [edge('t', 'm')] };
      expect(check(missing)).toEqual([
        { path: 'nodes[1]', nodeId: 'm', message: `a ${middle.type} needs an unlabelled edge leaving it` },
        { path: 'nodes[2]', nodeId: 'x', message: 'not reachable from the TRIGGER' },
      ]);
      const labelled = {
        nodes: [node.trigger('t'), middle, node.exit('x')],
        edges: [edge('t', 'm'), edge('m', 'x', 'next')],
      };
      expect(check(labelled)).toEqual([
        { path: 'nodes[1]', nodeId: 'm', message: `a ${middle.type} needs an unlabelled edge leaving it` },
        { path: 'edges[1]', message: `an edge labelled "next" may not leave a ${middle.type}` },
      ]);
      const two = {
        nodes: [node.trigger('t'), middle, node.exit('x'), node.exit('y')],
        edges: [edge('t', 'm'), edge('m', 'x'), edge('m', 'y')],
      };
      expect(check(two)).toEqual([
        { path: 'edges[2]', message: `another unlabelled edge leaves the same ${middle.type}` },
      ]);
    }
    expect(check({ nodes: [node.trigger('t')], edges: [] })).toEqual([
      { path: 'nodes[0]', nodeId: 't', message: 'a TRIGGER needs an unlabelled edge leaving it' },
    ]);
  });

  it('CONDITION edges are labelled exactly true and false', () => {
    const base = [node.trigger('t'), node.condition('if', FLAG_RULE), node.exit('x'), node.exit('y')];
    expect(
      check({ nodes: base, edges: [edge('t', 'if'), edge('if', 'x', 'true'), edge('if', 'y', 'false')] }),
    ).toEqual([]);
    expect(
      check({ nodes: base, edges: [edge('t', 'if'), edge('if', 'x', 'yes'), edge('if', 'y', 'false')] }),
    ).toEqual([
      { path: 'nodes[1]', nodeId: 'if', message: 'a CONDITION needs an edge labelled "true" leaving it' },
      { path: 'edges[1]', message: 'an edge labelled "yes" may not leave a CONDITION' },
    ]);
    expect(
      check({
        nodes: base,
        edges: [edge('t', 'if'), edge('if', 'x', 'true'), edge('if', 'y', 'true'), edge('if', 'x', 'false')],
      }),
    ).toEqual([{ path: 'edges[2]', message: 'another edge labelled "true" leaves the same CONDITION' }]);
    expect(
      check({ nodes: base, edges: [edge('t', 'if'), edge('if', 'x', 'true'), edge('if', 'y')] }),
    ).toEqual([
      { path: 'nodes[1]', nodeId: 'if', message: 'a CONDITION needs an edge labelled "false" leaving it' },
      { path: 'edges[2]', message: 'an unlabelled edge may not leave a CONDITION' },
    ]);
  });

  it('WAIT_FOR_EVENT takes an event edge, and a timeout edge only with a timeout', () => {
    const nodes = (timeout?: number) => [
      node.trigger('t'),
      node.waitForEvent('w', 'paid', timeout),
      node.exit('x'),
      node.exit('y'),
    ];
    expect(
      check({
        nodes: nodes(60_000),
        edges: [edge('t', 'w'), edge('w', 'x', 'event'), edge('w', 'y', 'timeout')],
      }),
    ).toEqual([]);
    expect(check({ nodes: nodes(60_000), edges: [edge('t', 'w'), edge('w', 'x', 'event')] })).toEqual([
      {
        path: 'nodes[1]',
        nodeId: 'w',
        message: 'a WAIT_FOR_EVENT needs an edge labelled "timeout" leaving it',
      },
      { path: 'nodes[3]', nodeId: 'y', message: 'not reachable from the TRIGGER' },
    ]);
    expect(
      check({ nodes: nodes(), edges: [edge('t', 'w'), edge('w', 'x', 'event'), edge('w', 'y', 'timeout')] }),
    ).toEqual([
      {
        path: 'edges[2]',
        message: 'an edge labelled "timeout" may not leave a WAIT_FOR_EVENT without a timeout',
      },
    ]);
    expect(check({ nodes: nodes(), edges: [edge('t', 'w'), edge('w', 'x', 'timeout')] })).toEqual([
      {
        path: 'nodes[1]',
        nodeId: 'w',
        message: 'a WAIT_FOR_EVENT without a timeout needs an edge labelled "event" leaving it',
      },
      { path: 'nodes[3]', nodeId: 'y', message: 'not reachable from the TRIGGER' },
      {
        path: 'edges[1]',
        message: 'an edge labelled "timeout" may not leave a WAIT_FOR_EVENT without a timeout',
      },
    ]);
  });

  it('GOAL_CHECK edges are met and not_met, and the journey needs a goal', () => {
    const nodes = [node.trigger('t'), node.goalCheck('g'), node.exit('x'), node.exit('y')];
    const edges = [edge('t', 'g'), edge('g', 'x', 'met'), edge('g', 'y', 'not_met')];
    expect(check({ nodes, edges, goalConfig: GOAL })).toEqual([]);
    expect(check({ nodes, edges, goalConfig: null })).toEqual([
      { path: 'nodes[1]', nodeId: 'g', message: 'a GOAL_CHECK needs the journey to have a goalConfig' },
    ]);
    expect(
      check({
        nodes,
        edges: [edge('t', 'g'), edge('g', 'x', 'met'), edge('g', 'y', 'unmet')],
        goalConfig: GOAL,
      }),
    ).toEqual([
      { path: 'nodes[1]', nodeId: 'g', message: 'a GOAL_CHECK needs an edge labelled "not_met" leaving it' },
      { path: 'edges[2]', message: 'an edge labelled "unmet" may not leave a GOAL_CHECK' },
    ]);
  });

  it('SPLIT branches sum to 100 and match the edge labels one to one', () => {
    const split = (a: number, b: number) =>
      node.split('s', [
        { label: 'A', percentage: a },
        { label: 'B', percentage: b },
      ]);
    const nodes = (a: number, b: number) => [node.trigger('t'), split(a, b), node.exit('x'), node.exit('y')];
    const edges = [edge('t', 's'), edge('s', 'x', 'A'), edge('s', 'y', 'B')];
    expect(check({ nodes: nodes(40, 60), edges })).toEqual([]);
    expect(check({ nodes: nodes(0, 100), edges })).toEqual([]);
    expect(check({ nodes: nodes(40, 50), edges })).toEqual([
      { path: 'nodes[1]', nodeId: 's', message: 'SPLIT branch percentages must sum to 100 (they sum to 90)' },
    ]);
    expect(
      check({ nodes: nodes(40, 60), edges: [edge('t', 's'), edge('s', 'x', 'A'), edge('s', 'y', 'C')] }),
    ).toEqual([
      { path: 'nodes[1]', nodeId: 's', message: 'a SPLIT needs an edge labelled "B" leaving it' },
      { path: 'edges[2]', message: 'an edge labelled "C" may not leave a SPLIT' },
    ]);
    expect(
      check({
        nodes: nodes(40, 60),
        edges: [edge('t', 's'), edge('s', 'x', 'A'), edge('s', 'y', 'B'), edge('s', 'y', 'A')],
      }),
    ).toEqual([{ path: 'edges[3]', message: 'another edge labelled "A" leaves the same SPLIT' }]);
  });

  it('EXIT has no outgoing edges', () => {
    const graph = {
      nodes: [node.trigger('t'), node.exit('x'), node.exit('y')],
      edges: [edge('t', 'x'), edge('x', 'y')],
    };
    expect(check(graph)).toEqual([{ path: 'edges[1]', message: 'an EXIT node has no outgoing edges' }]);
  });

  it('refuses a cycle without a WAIT or WAIT_FOR_EVENT, naming its first node', () => {
    // t -> c1 -> if -(true)-> c1 (CONTENT does not break a cycle), -(false)-> x
    const graph = {
      nodes: [node.trigger('t'), node.exit('x'), node.content('c1'), node.condition('if', FLAG_RULE)],
      edges: [edge('t', 'c1'), edge('c1', 'if'), edge('if', 'c1', 'true'), edge('if', 'x', 'false')],
    };
    expect(check(graph)).toEqual([
      {
        path: 'nodes[2]',
        nodeId: 'c1',
        message: 'a cycle through nodes[2], nodes[3] has no WAIT or WAIT_FOR_EVENT in it',
      },
    ]);
    // the same loop through a WAIT is fine
    const withWait = {
      nodes: [...graph.nodes, node.wait('w')],
      edges: [
        edge('t', 'c1'),
        edge('c1', 'if'),
        edge('if', 'w', 'true'),
        edge('w', 'c1'),
        edge('if', 'x', 'false'),
      ],
    };
    expect(check(withWait)).toEqual([]);
  });

  it('refuses a SPLIT looping to itself, and finds each wait-free cycle once', () => {
    const graph = {
      nodes: [
        node.trigger('t'),
        node.split('s', [
          { label: 'again', percentage: 50 },
          { label: 'on', percentage: 50 },
        ]),
        node.goalCheck('g'),
        node.condition('if', FLAG_RULE),
        node.exit('x'),
      ],
      edges: [
        edge('t', 's'),
        edge('s', 's', 'again'),
        edge('s', 'g', 'on'),
        edge('g', 'if', 'met'),
        edge('g', 'x', 'not_met'),
        edge('if', 'g', 'true'),
        edge('if', 'x', 'false'),
      ],
      goalConfig: GOAL,
    };
    expect(check(graph)).toEqual([
      {
        path: 'nodes[1]',
        nodeId: 's',
        message: 'a cycle through nodes[1] has no WAIT or WAIT_FOR_EVENT in it',
      },
      {
        path: 'nodes[2]',
        nodeId: 'g',
        message: 'a cycle through nodes[2], nodes[3] has no WAIT or WAIT_FOR_EVENT in it',
      },
    ]);
  });

  it('names a duplicated node id', () => {
    const graph = { nodes: [node.trigger('t'), node.exit('x'), node.exit('x')], edges: [edge('t', 'x')] };
    expect(check(graph)).toEqual([
      { path: 'nodes[2]', nodeId: 'x', message: 'another node has the same id' },
    ]);
  });

  it('finds nothing wrong with any generated valid graph, and something once an edge is gone', () => {
    fc.assert(
      fc.property(validGraphArb, fc.nat(), (graph, pick) => {
        expect(check(graph)).toEqual([]);
        const edges = graph.edges.filter((_, i) => i !== pick % graph.edges.length);
        expect(check({ ...graph, edges }).length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('handles a long chain without recursion limits', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `n${i}`);
    const nodes = [
      node.trigger(ids[0]),
      ...ids.slice(1, -1).map((id) => node.condition(id, FLAG_RULE)),
      node.exit(ids[499]),
    ];
    const edges = ids
      .slice(1)
      .flatMap((id, i) =>
        i === 0 ? [edge(ids[0]!, id)] : [edge(ids[i]!, id, 'true'), edge(ids[i]!, id, 'false')],
      );
    expect(check({ nodes, edges })).toEqual([]);
    // close it into one big wait-free cycle
    const cyclic = [
      ...edges.slice(0, -2),
      edge(ids[498]!, ids[1]!, 'true'),
      edge(ids[498]!, ids[499]!, 'false'),
    ];
    expect(check({ nodes, edges: cyclic }).map((i) => i.path)).toEqual(['nodes[1]']);
  });
});
