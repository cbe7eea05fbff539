import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  addEdge,
  Background,
  type Connection,
  Controls,
  type Edge,
  Handle,
  MarkerType,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  type ReactFlowInstance,
  useEdgesState,
  useNodesState,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, api, must, type Schemas } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  FormError,
  formatDate,
  Loading,
  Notice,
  Page,
  StatusBadge,
  Tabs,
  TextField,
} from '../../kit/ui';
import { countRules } from '../audiences/rule-builder';
import { NodeForm, splitDuration, useContentItems } from './node-forms';

type NodeType = Schemas['JourneyNode']['type'];
type NodeData = {
  type: NodeType;
  config: Record<string, unknown>;
  contentId: string | null;
  error?: string;
  stats?: { entered: number; waiting: number; goalReached: number };
};
type JNode = Node<NodeData, 'journey'>;

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
const LABEL = Object.fromEntries(NODE_TYPES.map((t) => [t.type, t.label])) as Record<NodeType, string>;

/** The labels a node's outgoing edges take, in order (publish checks them). */
function edgeLabels(data: NodeData): (string | null)[] {
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

function durationText(ms: number): string {
  const { amount, unit } = splitDuration(ms);
  return `${amount} ${amount === 1 ? unit.replace(/s$/, '') : unit}`;
}

function summary(d: NodeData): string {
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

function JourneyNodeView({ data, selected }: NodeProps<JNode>) {
  return (
    <div
      className={`jnode jnode-${data.type.toLowerCase()}${selected ? ' selected' : ''}${data.error ? ' invalid' : ''}`}
    >
      {data.type !== 'TRIGGER' ? <Handle type="target" position={Position.Top} /> : null}
      <div className="jnode-type">{LABEL[data.type]}</div>
      <div className="jnode-summary">
        {summary(data) || '\u00a0'}
        {data.type === 'CONTENT' ? (
          <ContentName kind={String(data.config.contentType)} id={data.contentId} />
        ) : null}
      </div>
      {data.stats ? (
        <div className="jnode-stats" title="Entered · waiting now · goal reached">
          {data.stats.entered} entered · {data.stats.waiting} waiting
          {data.stats.goalReached ? ` · ${data.stats.goalReached} goal` : ''}
        </div>
      ) : null}
      {data.error ? (
        <div className="jnode-error" role="alert">
          {data.error}
        </div>
      ) : null}
      {data.type !== 'EXIT' ? <Handle type="source" position={Position.Bottom} /> : null}
    </div>
  );
}
const nodeTypes = { journey: JourneyNodeView };

/** The name of a CONTENT node's item (the picker's list, shared through the query cache). */
function ContentName({ kind, id }: { kind: string; id: string | null }) {
  const items = useContentItems(kind);
  if (!id) return <> (pick one)</>;
  const name = items.data?.find((x) => x.id === id)?.name;
  return <>: {name ?? id.slice(0, 8)}</>;
}

/** One journey: the canvas (drag nodes, connect with labelled edges, configure), publish with the errors on their nodes, enrollments, analytics on the canvas. */
export default function JourneyPage() {
  const { id = '' } = useParams();
  const journey = useQuery({
    queryKey: ['journey', id],
    queryFn: async () => (await must(api.GET('/api/journeys/{id}', { params: { path: { id } } }))).data,
  });
  if (journey.isPending) return <Loading />;
  if (journey.isError) return <FormError error={journey.error} />;
  return <Canvas key={journey.data.updatedAt} journey={journey.data} />;
}

function toFlow(journey: Schemas['Journey']): { nodes: JNode[]; edges: Edge[] } {
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
function edgeOf(source: string, target: string, label: string | null): Edge {
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

function Canvas({ journey }: { journey: Schemas['Journey'] }) {
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const initial = useMemo(() => toFlow(journey), [journey]);
  const [nodes, setNodes, onNodesChange] = useNodesState<JNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [tab, setTab] = useState<'canvas' | 'enrollments'>('canvas');
  const [showStats, setShowStats] = useState(false);
  const [flow, setFlow] = useState<ReactFlowInstance<JNode, Edge>>();
  const [saved, setSaved] = useState<string>();
  const selectedNode = nodes.find((n) => n.selected);
  const selectedEdge = edges.find((e) => e.selected);
  const analytics = useQuery({
    queryKey: ['journey-analytics', journey.id],
    enabled: showStats,
    queryFn: async () =>
      (await must(api.GET('/api/journeys/{id}/analytics', { params: { path: { id: journey.id } } }))).data,
  });
  const stats = new Map(analytics.data?.nodes.map((n) => [n.nodeId, n]));
  const shown = showStats ? nodes.map((n) => ({ ...n, data: { ...n.data, stats: stats.get(n.id) } })) : nodes;

  const canvasBody = () => ({
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
  });
  const clearErrors = () =>
    setNodes((ns) => ns.map((n) => (n.data.error ? { ...n, data: { ...n.data, error: undefined } } : n)));
  const save = useMutation({
    mutationFn: () =>
      must(
        api.PUT('/api/journeys/{id}/canvas', {
          params: { path: { id: journey.id } },
          body: canvasBody() as never,
        }),
      ),
    onSuccess: () => {
      clearErrors();
      setSaved('Canvas saved.');
    },
  });
  const publish = useMutation({
    mutationFn: async () => {
      await must(
        api.PUT('/api/journeys/{id}/canvas', {
          params: { path: { id: journey.id } },
          body: canvasBody() as never,
        }),
      );
      return must(api.POST('/api/journeys/{id}/publish', { params: { path: { id: journey.id } } }));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['journey', journey.id] });
      void client.invalidateQueries({ queryKey: ['journeys'] });
    },
    onError: (error) => {
      // publish validation: each issue names its node (nodeId, or nodes[<index>] of the canvas sent)
      if (!(error instanceof ApiError) || !Array.isArray(error.details)) return;
      const byNode = new Map<string, string[]>();
      const sent = canvasBody().nodes;
      for (const d of error.details as { path?: string; nodeId?: string; message?: string }[]) {
        const index = /^nodes\[(\d+)\]/.exec(d.path ?? '')?.[1];
        const nodeId = d.nodeId ?? (index !== undefined ? sent[Number(index)]?.id : undefined);
        if (nodeId) byNode.set(nodeId, [...(byNode.get(nodeId) ?? []), d.message ?? 'invalid']);
      }
      setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, error: byNode.get(n.id)?.join('; ') } })));
    },
  });
  const lifecycle = useMutation({
    mutationFn: (action: 'pause' | 'unpublish' | 'restore') => {
      const path = { params: { path: { id: journey.id } } };
      if (action === 'pause') return must(api.POST('/api/journeys/{id}/pause', path));
      if (action === 'unpublish') return must(api.POST('/api/journeys/{id}/unpublish', path));
      return must(api.POST('/api/journeys/{id}/restore', path));
    },
    onSuccess: () => void client.invalidateQueries({ queryKey: ['journey', journey.id] }),
  });

  const addNode = (type: NodeType) => {
    const template = NODE_TYPES.find((t) => t.type === type)!;
    // below the lowest node, a handle's drag apart
    const y = nodes.length
      ? Math.max(...nodes.map((n) => n.position.y + (n.measured?.height ?? 70))) + 70
      : 40;
    setNodes((ns) => [
      ...ns.map((n) => ({ ...n, selected: false })),
      {
        id: crypto.randomUUID(),
        type: 'journey',
        position: { x: 240, y },
        data: { type, config: structuredClone(template.config), contentId: null },
        selected: true,
      },
    ]);
    // bring the new node into view (it is placed below the others)
    requestAnimationFrame(() => void flow?.fitView({ maxZoom: 1, duration: 200 }));
  };
  const onConnect = (c: Connection) => {
    const source = nodes.find((n) => n.id === c.source);
    if (!source || !c.target) return;
    const used = new Set(edges.filter((e) => e.source === c.source).map((e) => e.label ?? null));
    const label = edgeLabels(source.data).find((l) => !used.has(l ?? null)) ?? null;
    setEdges((es) => addEdge(edgeOf(c.source, c.target!, label), es));
  };
  const updateNode = (id: string, patch: Partial<NodeData>) =>
    setNodes((ns) => ns.map((n) => (n.id === id ? { ...n, data: { ...n.data, ...patch } } : n)));
  const editable = canEdit && journey.status !== 'ARCHIVED';

  return (
    <Page
      title={
        <>
          <Link to="/journeys" className="crumb">
            Journeys
          </Link>{' '}
          / {journey.name} <StatusBadge status={journey.status} />
        </>
      }
      actions={
        canEdit ? (
          <>
            {journey.status === 'PUBLISHED' ? (
              <Button onClick={() => lifecycle.mutate('pause')}>Pause</Button>
            ) : null}
            {journey.status === 'PUBLISHED' || journey.status === 'PAUSED' ? (
              <Button onClick={() => lifecycle.mutate('unpublish')}>Unpublish</Button>
            ) : null}
            {journey.status === 'ARCHIVED' ? (
              <Button onClick={() => lifecycle.mutate('restore')}>Restore</Button>
            ) : null}
            {editable ? (
              <Button onClick={() => save.mutate()} busy={save.isPending}>
                Save canvas
              </Button>
            ) : null}
            {editable && journey.status !== 'PUBLISHED' ? (
              <Button variant="primary" onClick={() => publish.mutate()} busy={publish.isPending}>
                Publish
              </Button>
            ) : null}
          </>
        ) : null
      }
    >
      {publish.isSuccess ? <Notice kind="success">Journey published.</Notice> : null}
      {saved && save.isSuccess ? <Notice kind="success">{saved}</Notice> : null}
      <FormError error={publish.error ?? save.error ?? lifecycle.error} />
      <Tabs<'canvas' | 'enrollments'>
        label="Journey sections"
        tabs={[
          { value: 'canvas', label: 'Canvas' },
          { value: 'enrollments', label: `Enrollments (${journey._count.enrollments})` },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === 'enrollments' ? (
        <Enrollments id={journey.id} />
      ) : (
        <div className="journey-grid">
          <div className="card canvas-card">
            <div className="card-header">
              {editable ? (
                <fieldset className="palette">
                  <legend className="sr-only">Add a node</legend>
                  {NODE_TYPES.map((t) => (
                    <button
                      key={t.type}
                      type="button"
                      className={`chip jnode-${t.type.toLowerCase()}`}
                      onClick={() => addNode(t.type)}
                    >
                      + {t.label}
                    </button>
                  ))}
                </fieldset>
              ) : (
                <span className="muted small">View only</span>
              )}
              <label className="checkbox small">
                <input type="checkbox" checked={showStats} onChange={(e) => setShowStats(e.target.checked)} />{' '}
                Show analytics
              </label>
            </div>
            <section className="canvas" aria-label="Journey canvas">
              <ReactFlow
                nodes={shown}
                edges={edges}
                nodeTypes={nodeTypes}
                onNodesChange={onNodesChange}
                onEdgesChange={onEdgesChange}
                onConnect={onConnect}
                onInit={setFlow}
                nodesDraggable={editable}
                nodesConnectable={editable}
                elementsSelectable
                deleteKeyCode={editable ? ['Backspace', 'Delete'] : null}
                fitView
                fitViewOptions={{ maxZoom: 1 }}
                proOptions={{ hideAttribution: true }}
              >
                <Background gap={20} />
                <Controls showInteractive={false} />
              </ReactFlow>
            </section>
            {showStats && analytics.data ? (
              <p className="pad small muted">
                {analytics.data.enrollments} enrolled · {analytics.data.statuses.goal_reached} reached the
                goal ({analytics.data.conversion}%)
              </p>
            ) : null}
          </div>
          <div className="card pad config-panel">
            {selectedNode ? (
              <NodeConfig
                key={selectedNode.id}
                node={selectedNode}
                disabled={!editable}
                onChange={(p) => updateNode(selectedNode.id, p)}
                onDelete={() => {
                  setNodes((ns) => ns.filter((n) => n.id !== selectedNode.id));
                  setEdges((es) =>
                    es.filter((e) => e.source !== selectedNode.id && e.target !== selectedNode.id),
                  );
                }}
              />
            ) : selectedEdge ? (
              <div style={{ display: 'grid', gap: 12 }}>
                <h2>Edge</h2>
                <TextField
                  label="Edge label"
                  value={String(selectedEdge.label ?? '')}
                  disabled={!editable}
                  onChange={(e) => {
                    const label = e.target.value;
                    setEdges((es) =>
                      es.map((x) => (x.id === selectedEdge.id ? { ...x, label: label || undefined } : x)),
                    );
                  }}
                  hint="CONDITION: true / false; GOAL CHECK: met / not_met; WAIT FOR EVENT: event / timeout; SPLIT: a branch label; others: none."
                />
                {editable ? (
                  <Button
                    variant="danger"
                    onClick={() => setEdges((es) => es.filter((x) => x.id !== selectedEdge.id))}
                  >
                    Delete edge
                  </Button>
                ) : null}
              </div>
            ) : (
              <div className="muted small" style={{ display: 'grid', gap: 8 }}>
                <h2 style={{ color: 'var(--text)' }}>Configure</h2>
                <p>
                  Add nodes from the palette, drag them, and connect a node's bottom handle to another's top.
                  Select a node or an edge to configure it.
                </p>
                <p>Publishing checks the journey: problems are shown on the nodes they concern.</p>
              </div>
            )}
          </div>
        </div>
      )}
    </Page>
  );
}

function NodeConfig({
  node,
  disabled,
  onChange,
  onDelete,
}: {
  node: JNode;
  disabled: boolean;
  onChange(p: Partial<NodeData>): void;
  onDelete(): void;
}) {
  return (
    <form
      aria-label={`${LABEL[node.data.type]} node`}
      onSubmit={(e) => {
        e.preventDefault();
      }}
    >
      <h2>{LABEL[node.data.type]}</h2>
      {node.data.error ? <Notice kind="error">{node.data.error}</Notice> : null}
      <fieldset disabled={disabled}>
        <NodeForm
          type={node.data.type}
          config={node.data.config}
          contentId={node.data.contentId}
          onChange={onChange}
        />
      </fieldset>
      {!disabled ? (
        <div className="form-actions">
          <Button variant="danger" onClick={onDelete}>
            Delete node
          </Button>
        </div>
      ) : null}
    </form>
  );
}

function Enrollments({ id }: { id: string }) {
  const list = useQuery({
    queryKey: ['journey-enrollments', id],
    queryFn: () =>
      must(api.GET('/api/journeys/{id}/enrollments', { params: { path: { id }, query: { limit: '50' } } })),
  });
  if (list.isPending) return <Loading />;
  if (list.isError) return <FormError error={list.error} />;
  if (list.data.data.length === 0) return <p className="muted">No one is enrolled yet.</p>;
  return (
    <div className="card">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Status</th>
            <th scope="col">Enrolled</th>
            <th scope="col">Ended</th>
          </tr>
        </thead>
        <tbody>
          {list.data.data.map((e) => (
            <tr key={e.id}>
              <td>{e.endUser.userId ?? e.endUser.anonymousId ?? e.endUserId}</td>
              <td>
                <StatusBadge status={e.status} />
              </td>
              <td>{formatDate(e.enrolledAt)}</td>
              <td>{formatDate(e.endedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
