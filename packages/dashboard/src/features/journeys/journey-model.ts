import { type Edge, MarkerType, type Node } from '@xyflow/react';
import type { Schemas } from '../../app/api';
import { countRules } from '../audiences';
import { durationText } from './node-forms/node-config';

/**
 * The journey canvas's model: nodes and edges as React Flow holds them, from and to the API's
 * journey, the labels a node's edges take, each node's one-line summary, and the publish
 * problems sorted by node. Pure functions: the canvas component only holds the state.
 */

export type Journey = Schemas['Journey'];
export type NodeType = Schemas['JourneyNode']['type'];
export type NodeData = {
  type: NodeType;
  config: Record<string, unknown>;
  contentId: string | null;
  error?: string;
  stats?: { entered: number; waiting: number; goalReached: number };
};
export type JNode = Node<NodeData, 'journey'>;

/** The palette: each node type, its name, and the configuration a new node of it starts with. */
export const NODE_TYPES: readonly { type: NodeType; label: string; config: Record<string, unknown> }[] = [
  {
    type: 'TRIGGER',
    label: 'Trigger',
    config: { triggerType: 'URL_MATCH', triggerConfig: { matchType: 'contains', pattern: '/' } },
  },
  { type: 'CONTENT', label: 'Content', config: { contentType: 'flow' } },
  { type: 'WAIT', label: 'Wait', config: { duration: 86_400_000 } },
  { type: 'WAIT_FOR_EVENT', label: 'Wait for event', config: { eventName: 'signed_up' } },
  {
    type: 'CONDITION',
    label: 'Condition',
    config: { ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' } },
  },
  {
    type: 'SPLIT',
    label: 'Split',
    config: {
      branches: [
        { label: 'A', percentage: 50 },
        { label: 'B', percentage: 50 },
      ],
    },
  },
  { type: 'GOAL_CHECK', label: 'Goal check', config: {} },
  { type: 'EXIT', label: 'Exit', config: {} },
];
export const NODE_LABEL = Object.fromEntries(NODE_TYPES.map((t) => [t.type, t.label])) as Record<
  NodeType,
  string
>;

/** The labels a node's outgoing edges take, in order (publish checks them). */
export function edgeLabels(data: Pick<NodeData, 'type' | 'config'>): (string | null)[] {
  switch (data.type) {
    case 'CONDITION':
      return ['true', 'false'];
    case 'GOAL_CHECK':
      return ['met', 'not_met'];
    case 'WAIT_FOR_EVENT':
      return data.config.timeout ? ['event', 'timeout'] : ['event'];
    case 'SPLIT':
      return ((data.config.branches as { label?: string }[] | undefined) ?? []).map((b) =>
        String(b.label ?? ''),
      );
    case 'EXIT':
      return [];
    default:
      return [null];
  }
}

/** The label a new edge from `source` takes: the first of its labels no edge of it has yet. */
export function nextEdgeLabel(source: JNode, edges: readonly Edge[]): string | null {
  const used = new Set(edges.filter((e) => e.source === source.id).map((e) => e.label ?? null));
  return edgeLabels(source.data).find((l) => !used.has(l ?? null)) ?? null;
}

export function edgeOf(source: string, target: string, label: string | null): Edge {
  return {
    id: `${source}->${target}:${label ?? ''}`,
    source,
    target,
    label: label ?? undefined,
    markerEnd: { type: MarkerType.ArrowClosed },
    labelBgPadding: [6, 3],
    labelBgBorderRadius: 4,
  };
}

/** The API's journey as React Flow nodes and edges. */
export function toFlow(journey: Journey): { nodes: JNode[]; edges: Edge[] } {
  return {
    nodes: journey.nodes.map((n) => ({
      id: n.id,
      type: 'journey',
      position: n.position,
      data: { type: n.type, config: n.config, contentId: n.contentId },
    })),
    edges: journey.edges.map((e) => edgeOf(e.sourceNodeId, e.targetNodeId, e.label)),
  };
}

/** The body of `PUT /canvas`: positions rounded, a content id only on CONTENT nodes, labels only when set. */
export function canvasBody(nodes: readonly JNode[], edges: readonly Edge[]) {
  return {
    nodes: nodes.map((n) => ({
      id: n.id,
      type: n.data.type,
      config: n.data.config,
      contentId: n.data.type === 'CONTENT' ? n.data.contentId : undefined,
      position: { x: Math.round(n.position.x), y: Math.round(n.position.y) },
    })),
    edges: edges.map((e) => ({
      sourceNodeId: e.source,
      targetNodeId: e.target,
      // an edge without a label sends none (the API takes a string or nothing)
      ...(typeof e.label === 'string' && e.label ? { label: e.label } : {}),
    })),
  };
}

/** Publish problems by node: each names its node (`nodeId`, or `nodes[<index>]` of the canvas sent). */
export function errorsByNode(details: unknown, sent: readonly { id: string }[]): Map<string, string> {
  const byNode = new Map<string, string[]>();
  if (!Array.isArray(details)) return new Map();
  for (const d of details as { path?: string; nodeId?: string; message?: string }[]) {
    const index = /^nodes\[(\d+)\]/.exec(d.path ?? '')?.[1];
    const nodeId = d.nodeId ?? (index !== undefined ? sent[Number(index)]?.id : undefined);
    if (nodeId) byNode.set(nodeId, [...(byNode.get(nodeId) ?? []), d.message ?? 'invalid']);
  }
  return new Map([...byNode].map(([id, messages]) => [id, messages.join('; ')]));
}

/** A new node of a type from the palette, selected, below the lowest node (a handle's drag apart). */
export function newNode(type: NodeType, nodes: readonly JNode[], id: string): JNode {
  const template = NODE_TYPES.find((t) => t.type === type)!;
  const y = nodes.length ? Math.max(...nodes.map((n) => n.position.y + (n.measured?.height ?? 70))) + 70 : 40;
  return {
    id,
    type: 'journey',
    position: { x: 240, y },
    data: { type, config: structuredClone(template.config), contentId: null },
    selected: true,
  };
}

/** A node's one-line summary on the canvas: its trigger, content type, wait, event, rules or split. */
export function summary(d: Pick<NodeData, 'type' | 'config'>): string {
  const c = d.config;
  switch (d.type) {
    case 'TRIGGER': {
      const t = c.triggerConfig as Record<string, unknown> | undefined;
      return `${String(c.triggerType ?? '')} ${String(t?.pattern ?? t?.eventName ?? t?.selector ?? '')}`.trim();
    }
    case 'CONTENT':
      return String(c.contentType ?? '');
    case 'WAIT':
      return durationText(Number(c.duration ?? 0));
    case 'WAIT_FOR_EVENT':
      return `${String(c.eventName ?? '')}${typeof c.timeout === 'number' ? ` (≤ ${durationText(c.timeout)})` : ''}`;
    case 'CONDITION': {
      const n = countRules(c.ruleTree);
      return `${n} rule${n === 1 ? '' : 's'}`;
    }
    case 'SPLIT':
      return ((c.branches as { label?: string; percentage?: number }[] | undefined) ?? [])
        .map((b) => `${b.label} ${b.percentage}%`)
        .join(' / ');
    default:
      return '';
  }
}
