import fc from 'fast-check';
import type { RuleNode } from '../../src/engine/rules.js';
import type { JourneyGraph } from '../../src/modules/journeys/engine/graph.js';
import type {
  GoalConfig,
  JourneyEdge,
  JourneyNode,
  NodeOf,
} from '../../src/modules/journeys/engine/schemas.js';

/**
 * Journey canvases for tests: small builders (node ids are readable names; the engine takes any
 * string, only the HTTP schemas insist on uuids) and a fast-check generator of valid graphs.
 */

const at = { x: 0, y: 0 };

export const CONTENT_ID = '0190a2b4-1c2d-7e8f-9a0b-1c2d3e4f5a6b';

export const node = {
  trigger: (
    id = 'trigger',
    config: NodeOf<'TRIGGER'>['config'] = { triggerType: 'MANUAL', triggerConfig: {} },
  ) => ({ id, type: 'TRIGGER', config, position: at }) as JourneyNode,
  content: (id: string, contentId = CONTENT_ID, contentType: 'flow' | 'tooltip' = 'flow') =>
    ({ id, type: 'CONTENT', config: { contentType }, contentId, position: at }) as JourneyNode,
  wait: (id: string, duration = 60_000) =>
    ({ id, type: 'WAIT', config: { duration }, position: at }) as JourneyNode,
  waitForEvent: (id: string, eventName: string, timeout?: number) =>
    ({
      id,
      type: 'WAIT_FOR_EVENT',
      config: timeout === undefined ? { eventName } : { eventName, timeout },
      position: at,
    }) as JourneyNode,
  condition: (id: string, ruleTree: RuleNode) =>
    ({ id, type: 'CONDITION', config: { ruleTree }, position: at }) as JourneyNode,
  split: (id: string, branches: { label: string; percentage: number }[]) =>
    ({ id, type: 'SPLIT', config: { branches }, position: at }) as JourneyNode,
  goalCheck: (id: string) => ({ id, type: 'GOAL_CHECK', config: {}, position: at }) as JourneyNode,
  exit: (id = 'exit') => ({ id, type: 'EXIT', config: {}, position: at }) as JourneyNode,
};

export const edge = (sourceNodeId: string, targetNodeId: string, label?: string): JourneyEdge =>
  label === undefined ? { sourceNodeId, targetNodeId } : { sourceNodeId, targetNodeId, label };

/** `a -> b -> c` chains of unlabelled edges. */
export const chain = (...ids: string[]): JourneyEdge[] => ids.slice(1).map((id, i) => edge(ids[i]!, id));

// ---- random valid graphs ------------------------------------------------------------------------

export const FLAG_RULE: RuleNode = { field: 'traits.flag', operator: 'eq', value: true };
export const EVENT_NAMES = ['e1', 'e2'] as const;

type Kind =
  | 'CONTENT'
  | 'WAIT'
  | 'WAIT_FOR_EVENT'
  | 'WAIT_FOR_EVENT_T'
  | 'CONDITION'
  | 'SPLIT'
  | 'GOAL_CHECK'
  | 'EXIT';

function makeNode(kind: Kind, id: string, branches: number[]): JourneyNode {
  switch (kind) {
    case 'CONTENT':
      return node.content(id);
    case 'WAIT':
      return node.wait(id, 3_600_000);
    case 'WAIT_FOR_EVENT':
      return node.waitForEvent(id, EVENT_NAMES[id.length % 2]!);
    case 'WAIT_FOR_EVENT_T':
      return node.waitForEvent(id, EVENT_NAMES[id.length % 2]!, 7_200_000);
    case 'CONDITION':
      return node.condition(id, FLAG_RULE);
    case 'SPLIT':
      return node.split(
        id,
        branches.map((percentage, i) => ({ label: `b${i}`, percentage })),
      );
    case 'GOAL_CHECK':
      return node.goalCheck(id);
    case 'EXIT':
      return node.exit(id);
  }
}

const slotsOf = (n: JourneyNode): (string | undefined)[] => {
  switch (n.type) {
    case 'EXIT':
      return [];
    case 'WAIT_FOR_EVENT':
      return n.config.timeout === undefined ? ['event'] : ['event', 'timeout'];
    case 'CONDITION':
      return ['true', 'false'];
    case 'SPLIT':
      return n.config.branches.map((b) => b.label);
    case 'GOAL_CHECK':
      return ['met', 'not_met'];
    default:
      return [undefined];
  }
};

/** Percentages of 2–3 branches summing to 100 (zeros included now and then). */
const branchesArb = fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 2 }).map((cuts) => {
  const points = [0, ...cuts.sort((a, b) => a - b), 100];
  return points.slice(1).map((p, i) => p - points[i]!);
});

const goalArb: fc.Arbitrary<GoalConfig> = fc
  .tuple(
    fc.constantFrom<GoalConfig['type']>('event', 'attribute_match', 'flow_completed'),
    fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  )
  .map(([type, deadline]) => {
    const extra = deadline === undefined ? {} : { deadline };
    if (type === 'event') return { type, config: { eventName: 'goal' }, ...extra };
    if (type === 'flow_completed') return { type, config: { flowId: CONTENT_ID }, ...extra };
    return {
      type: 'attribute_match',
      config: { ruleTree: { field: 'traits.goal', operator: 'eq', value: true } },
      ...extra,
    };
  });

/**
 * A valid journey (validateForPublish finds nothing): a MANUAL TRIGGER, 1–14 random nodes and a
 * final EXIT. Every node is first attached to a free exit of an earlier node (so every node is
 * reachable); the remaining exits go forward to any later node or back to a WAIT or
 * WAIT_FOR_EVENT at or before their source, so every cycle passes through a waiting node.
 */
export const validGraphArb: fc.Arbitrary<JourneyGraph> = fc
  .record({
    kinds: fc.array(
      fc.constantFrom<Kind>(
        'CONTENT',
        'WAIT',
        'WAIT_FOR_EVENT',
        'WAIT_FOR_EVENT_T',
        'CONDITION',
        'SPLIT',
        'GOAL_CHECK',
        'EXIT',
      ),
      { minLength: 1, maxLength: 14 },
    ),
    branches: fc.array(branchesArb, { minLength: 14, maxLength: 14 }),
    picks: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
    goal: goalArb,
  })
  .map(({ kinds, branches, picks, goal }) => {
    let pick = 0;
    const choose = (n: number) => picks[pick++ % picks.length]! % n;
    const nodes: JourneyNode[] = [node.trigger('n0')];
    let free = 1;
    kinds.forEach((k, i) => {
      // An EXIT that would leave no exit for the next node to hang on becomes a WAIT.
      const kind = k === 'EXIT' && free === 1 ? 'WAIT' : k;
      const n = makeNode(kind, `n${i + 1}`, branches[i]!);
      nodes.push(n);
      free += slotsOf(n).length - 1;
    });
    nodes.push(node.exit(`n${nodes.length}`));

    const open: { source: number; label: string | undefined }[] = [];
    const edges: JourneyEdge[] = [];
    nodes.forEach((n, k) => {
      if (k > 0) {
        const [slot] = open.splice(choose(open.length), 1);
        edges.push(edge(nodes[slot!.source]!.id, n.id, slot!.label));
      }
      for (const label of slotsOf(n)) open.push({ source: k, label });
    });
    for (const slot of open) {
      const targets = nodes
        .map((n, k) => ({ n, k }))
        .filter(
          ({ n, k }) => k > slot.source || ((n.type === 'WAIT' || n.type === 'WAIT_FOR_EVENT') && k > 0),
        );
      const target = targets[choose(targets.length)]!;
      edges.push(edge(nodes[slot.source]!.id, target.n.id, slot.label));
    }
    return { nodes, edges, goalConfig: goal };
  });
