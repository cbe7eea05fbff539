import {
  addEdge,
  type Connection,
  type Edge,
  type ReactFlowInstance,
  useEdgesState,
  useNodesState,
} from '@xyflow/react';
import { useMemo, useState } from 'react';
import {
  edgeOf,
  errorsByNode,
  type JNode,
  type Journey,
  type NodeData,
  type NodeType,
  newNode,
  nextEdgeLabel,
  toFlow,
} from './journey-model';

/**
 * The canvas's state: React Flow's nodes and edges from the journey, and the edits the page
 * makes to them (add a node from the palette, connect, configure, delete, show publish problems).
 */
export function useJourneyCanvas(journey: Journey) {
  const initial = useMemo(() => toFlow(journey), [journey]);
  const [nodes, setNodes, onNodesChange] = useNodesState<JNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [flow, setFlow] = useState<ReactFlowInstance<JNode, Edge>>();
  return {
    nodes,
    edges,
    onNodesChange,
    onEdgesChange,
    onInit: setFlow,
    addNode(type: NodeType) {
      setNodes((ns) => [
        ...ns.map((n) => ({ ...n, selected: false })),
        newNode(type, ns, crypto.randomUUID()),
      ]);
      // bring the new node into view (it is placed below the others)
      requestAnimationFrame(() => void flow?.fitView({ maxZoom: 1, duration: 200 }));
    },
    /** A new edge takes the next label its source needs (true/false, met/not_met, a branch…). */
    onConnect(c: Connection) {
      const source = nodes.find((n) => n.id === c.source);
      if (!source || !c.target) return;
      setEdges((es) => addEdge(edgeOf(c.source, c.target, nextEdgeLabel(source, es)), es));
    },
    updateNode(id: string, patch: Partial<NodeData>) {
      setNodes((ns) => ns.map((n) => (n.id === id ? { ...n, data: { ...n.data, ...patch } } : n)));
    },
    deleteNode(id: string) {
      setNodes((ns) => ns.filter((n) => n.id !== id));
      setEdges((es) => es.filter((e) => e.source !== id && e.target !== id));
    },
    setEdgeLabel(id: string, label: string) {
      setEdges((es) => es.map((x) => (x.id === id ? { ...x, label: label || undefined } : x)));
    },
    deleteEdge(id: string) {
      setEdges((es) => es.filter((x) => x.id !== id));
    },
    /** Publish problems drawn on their nodes (and cleared from the others). */
    showErrors(details: unknown, sent: readonly { id: string }[]) {
      const byNode = errorsByNode(details, sent);
      setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, error: byNode.get(n.id) } })));
    },
    clearErrors() {
      setNodes((ns) => ns.map((n) => (n.data.error ? { ...n, data: { ...n.data, error: undefined } } : n)));
    },
  };
}
