import type { GoalConfig, JourneyEdge, JourneyNode, NodeOf } from './schemas.js';

/** A journey as the engine reads it: its saved canvas and its goal. */
export interface JourneyGraph {
  nodes: readonly JourneyNode[];
  edges: readonly JourneyEdge[];
  goalConfig?: GoalConfig | null;
}

/** A graph indexed for stepping: built once per journey version and shared by every enrollment. */
export interface CompiledJourney {
  nodes: ReadonlyMap<string, JourneyNode>;
  /** Outgoing edges per node id, in canvas order. */
  outgoing: ReadonlyMap<string, readonly JourneyEdge[]>;
  /** The first TRIGGER of the canvas (publish makes sure there is exactly one). */
  trigger: NodeOf<'TRIGGER'> | null;
  goal: GoalConfig | null;
}

export function compileJourney(graph: JourneyGraph): CompiledJourney {
  const nodes = new Map<string, JourneyNode>();
  let trigger: NodeOf<'TRIGGER'> | null = null;
  for (const node of graph.nodes) {
    if (!nodes.has(node.id)) nodes.set(node.id, node);
    if (trigger === null && node.type === 'TRIGGER') trigger = node;
  }
  const outgoing = new Map<string, JourneyEdge[]>();
  for (const edge of graph.edges) {
    const list = outgoing.get(edge.sourceNodeId);
    if (list) list.push(edge);
    else outgoing.set(edge.sourceNodeId, [edge]);
  }
  return { nodes, outgoing, trigger, goal: graph.goalConfig ?? null };
}

/**
 * The outgoing edges a node of this type takes, by label (`null`: one edge without a label).
 * Publish requires exactly these; at run time a node follows the edge of the label it chose.
 * - TRIGGER, CONTENT, WAIT: one unlabelled edge;
 * - WAIT_FOR_EVENT: `event`, and `timeout` when (and only when) it has a timeout;
 * - CONDITION: `true` and `false`; GOAL_CHECK: `met` and `not_met`;
 * - SPLIT: one per branch label; EXIT: none.
 */
export function exitLabels(node: JourneyNode): (string | null)[] {
  switch (node.type) {
    case 'TRIGGER':
    case 'CONTENT':
    case 'WAIT':
      return [null];
    case 'WAIT_FOR_EVENT':
      return node.config.timeout === undefined ? ['event'] : ['event', 'timeout'];
    case 'CONDITION':
      return ['true', 'false'];
    case 'SPLIT':
      return node.config.branches.map((b) => b.label);
    case 'GOAL_CHECK':
      return ['met', 'not_met'];
    case 'EXIT':
      return [];
  }
}

/** The edge leaving `nodeId` with `label` (`null`: the unlabelled one), first in canvas order. */
export function edgeFrom(
  journey: CompiledJourney,
  nodeId: string,
  label: string | null,
): JourneyEdge | undefined {
  return journey.outgoing.get(nodeId)?.find((e) => (e.label ?? null) === label);
}

/** Nodes that hold an enrollment until something happens: a timer, an event, or the user. */
export const WAITING_NODE_TYPES: ReadonlySet<JourneyNode['type']> = new Set([
  'WAIT',
  'WAIT_FOR_EVENT',
  'CONTENT',
]);
