import { exitLabels, type JourneyGraph } from './graph.js';
import type { JourneyNode } from './schemas.js';

/** One reason a journey cannot be published, at the node or edge it is about. */
export interface PublishIssue {
  /** `nodes[<index>]` or `edges[<index>]` of the canvas; `nodes` for the canvas as a whole. */
  path: string;
  /** The node concerned (for an edge: none). */
  nodeId?: string;
  message: string;
}

export interface PublishChecks {
  /** Whether the content a CONTENT node shows exists (and may be shown: not archived). */
  contentExists(contentType: string, contentId: string): boolean;
}

/** Nodes whose wait lets a cycle through them not spin: a cycle needs one of these in it. */
const CYCLE_BREAKERS: ReadonlySet<string> = new Set(['WAIT', 'WAIT_FOR_EVENT']);

const show = (label: string | null, article: 'an' | 'another' = 'an') =>
  label === null ? `${article} unlabelled edge` : `${article} edge labelled "${label}"`;

/**
 * The graph rules of publish (DECISIONS §6 and the journeys issue), every issue found, ordered
 * by path: nodes by index, then edges by index. An empty list means the journey may be published.
 *
 * - exactly one TRIGGER, no edge into it, and every node reachable from it;
 * - edges point at nodes of the journey;
 * - CONTENT nodes point at existing content (the caller's predicate);
 * - each node has exactly the outgoing edges of `exitLabels` (EXIT none), labels as listed;
 * - SPLIT percentages sum to 100; GOAL_CHECK needs the journey's goal;
 * - no cycle without a WAIT or WAIT_FOR_EVENT in it.
 */
export function validateForPublish(graph: JourneyGraph, checks: PublishChecks): PublishIssue[] {
  const issues: { issue: PublishIssue; order: number }[] = [];
  const add = (kind: 'nodes' | 'edges', index: number, message: string, nodeId?: string) =>
    issues.push({
      issue: { path: `${kind}[${index}]`, ...(nodeId !== undefined ? { nodeId } : {}), message },
      order: kind === 'nodes' ? index : graph.nodes.length + index,
    });
  const nodeAt = (index: number, message: string) => add('nodes', index, message, graph.nodes[index]!.id);

  const indexOf = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    if (indexOf.has(node.id)) nodeAt(i, 'another node has the same id');
    else indexOf.set(node.id, i);
  });

  const triggers = graph.nodes.flatMap((n, i) => (n.type === 'TRIGGER' ? [i] : []));
  if (triggers.length === 0) {
    issues.push({ issue: { path: 'nodes', message: 'a journey needs exactly one TRIGGER node' }, order: -1 });
  }
  for (const i of triggers.slice(1)) nodeAt(i, 'a journey has exactly one TRIGGER; this is another');

  // Edges: both ends exist; labels as the source's type requires.
  const outgoing = new Map<number, number[]>();
  graph.edges.forEach((edge, e) => {
    const source = indexOf.get(edge.sourceNodeId);
    const target = indexOf.get(edge.targetNodeId);
    if (source === undefined)
      add('edges', e, `sourceNodeId ${edge.sourceNodeId} is not a node of this journey`);
    if (target === undefined)
      add('edges', e, `targetNodeId ${edge.targetNodeId} is not a node of this journey`);
    if (target !== undefined && graph.nodes[target]!.type === 'TRIGGER') {
      add('edges', e, 'no edge may lead into the TRIGGER');
    }
    if (source === undefined || target === undefined) return;
    const list = outgoing.get(source);
    if (list) list.push(e);
    else outgoing.set(source, [e]);
  });

  graph.nodes.forEach((node, i) => {
    checkNode(node, i, outgoing.get(i) ?? []);
  });

  function checkNode(node: JourneyNode, i: number, edgeIndexes: number[]): void {
    if (node.type === 'CONTENT' && !checks.contentExists(node.config.contentType, node.contentId)) {
      nodeAt(i, `${node.config.contentType} ${node.contentId} does not exist or is archived`);
    }
    if (node.type === 'SPLIT') {
      const sum = node.config.branches.reduce((s, b) => s + b.percentage, 0);
      if (sum !== 100) nodeAt(i, `SPLIT branch percentages must sum to 100 (they sum to ${sum})`);
    }
    if (node.type === 'GOAL_CHECK' && !graph.goalConfig) {
      nodeAt(i, 'a GOAL_CHECK needs the journey to have a goalConfig');
    }
    const wanted = exitLabels(node);
    const taken = new Set<string | null>();
    for (const e of edgeIndexes) {
      const label = graph.edges[e]!.label ?? null;
      if (node.type === 'EXIT') add('edges', e, 'an EXIT node has no outgoing edges');
      else if (!wanted.includes(label)) add('edges', e, `${show(label)} may not leave a ${describe(node)}`);
      else if (taken.has(label)) add('edges', e, `${show(label, 'another')} leaves the same ${node.type}`);
      taken.add(label);
    }
    for (const label of wanted) {
      if (!taken.has(label)) nodeAt(i, `a ${describe(node)} needs ${show(label)} leaving it`);
    }
  }

  const trigger = triggers[0];
  if (trigger !== undefined) {
    const reached = reachableFrom(trigger, graph, indexOf, outgoing);
    graph.nodes.forEach((n, i) => {
      // a duplicate is reported as such; edges reach its first holder of the id
      if (!reached[i] && indexOf.get(n.id) === i) nodeAt(i, 'not reachable from the TRIGGER');
    });
  }

  for (const cycle of cyclesWithoutWait(graph, indexOf, outgoing)) {
    const first = Math.min(...cycle);
    const names = cycle
      .sort((a, b) => a - b)
      .map((n) => `nodes[${n}]`)
      .join(', ');
    nodeAt(first, `a cycle through ${names} has no WAIT or WAIT_FOR_EVENT in it`);
  }

  return issues.sort((a, b) => a.order - b.order).map((x) => x.issue);
}

function describe(node: JourneyNode): string {
  if (node.type === 'WAIT_FOR_EVENT' && node.config.timeout === undefined)
    return 'WAIT_FOR_EVENT without a timeout';
  return node.type;
}

type IndexOf = ReadonlyMap<string, number>;

function reachableFrom(
  start: number,
  graph: JourneyGraph,
  indexOf: IndexOf,
  outgoing: Map<number, number[]>,
): boolean[] {
  const reached = new Array<boolean>(graph.nodes.length).fill(false);
  const stack = [start];
  reached[start] = true;
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const e of outgoing.get(n) ?? []) {
      const t = indexOf.get(graph.edges[e]!.targetNodeId)!;
      if (!reached[t]) {
        reached[t] = true;
        stack.push(t);
      }
    }
  }
  return reached;
}

/**
 * The cycles that pass through no WAIT or WAIT_FOR_EVENT: the strongly connected components
 * (Tarjan's algorithm, iterative) of the graph without those nodes that hold a cycle (more than
 * one node, or a node with an edge to itself). Each is a list of node indexes.
 */
function cyclesWithoutWait(
  graph: JourneyGraph,
  indexOf: IndexOf,
  outgoing: Map<number, number[]>,
): number[][] {
  const kept = (i: number) => !CYCLE_BREAKERS.has(graph.nodes[i]!.type);
  const successors = (i: number): number[] =>
    (outgoing.get(i) ?? []).map((e) => indexOf.get(graph.edges[e]!.targetNodeId)!).filter(kept);

  const n = graph.nodes.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const cycles: number[][] = [];
  let counter = 0;

  for (let root = 0; root < n; root++) {
    if (!kept(root) || index[root] !== -1) continue;
    // Each frame: a node and the position of the next successor to look at.
    const frames: { v: number; next: number; succ: number[] }[] = [];
    const open = (v: number) => {
      index[v] = low[v] = counter++;
      stack.push(v);
      onStack[v] = true;
      frames.push({ v, next: 0, succ: successors(v) });
    };
    open(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      if (frame.next < frame.succ.length) {
        const w = frame.succ[frame.next++]!;
        if (index[w] === -1) open(w);
        else if (onStack[w]) low[frame.v] = Math.min(low[frame.v]!, index[w]!);
        continue;
      }
      frames.pop();
      const { v } = frame;
      const parent = frames[frames.length - 1];
      if (parent) low[parent.v] = Math.min(low[parent.v]!, low[v]!);
      if (low[v] !== index[v]) continue;
      const component: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || frame.succ.includes(v)) cycles.push(component);
    }
  }
  return cycles;
}
