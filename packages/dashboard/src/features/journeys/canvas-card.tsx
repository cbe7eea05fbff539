import { Background, Controls, ReactFlow } from '@xyflow/react';
import type { Schemas } from '../../app/api';
import { NODE_TYPES } from './journey-model';
import { JourneyNodeView } from './node-view';
import type { useJourneyCanvas } from './use-journey-canvas';

const nodeTypes = { journey: JourneyNodeView };

/** The canvas card: the palette (or "View only"), the analytics switch, React Flow, and the journey's totals. */
export function CanvasCard({
  canvas,
  editable,
  showStats,
  onShowStats,
  analytics,
}: {
  canvas: ReturnType<typeof useJourneyCanvas>;
  editable: boolean;
  showStats: boolean;
  onShowStats(show: boolean): void;
  analytics: Schemas['JourneyAnalytics'] | undefined;
}) {
  const stats = new Map(analytics?.nodes.map((n) => [n.nodeId, n]));
  const shown = analytics
    ? canvas.nodes.map((n) => ({ ...n, data: { ...n.data, stats: stats.get(n.id) } }))
    : canvas.nodes;
  return (
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
                onClick={() => canvas.addNode(t.type)}
              >
                + {t.label}
              </button>
            ))}
          </fieldset>
        ) : (
          <span className="muted small">View only</span>
        )}
        <label className="checkbox small">
          <input type="checkbox" checked={showStats} onChange={(e) => onShowStats(e.target.checked)} /> Show
          analytics
        </label>
      </div>
      <section className="canvas" aria-label="Journey canvas">
        <ReactFlow
          nodes={shown}
          edges={canvas.edges}
          nodeTypes={nodeTypes}
          onNodesChange={canvas.onNodesChange}
          onEdgesChange={canvas.onEdgesChange}
          onConnect={canvas.onConnect}
          onInit={canvas.onInit}
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
      {analytics ? (
        <p className="pad small muted">
          {analytics.enrollments} enrolled · {analytics.statuses.goal_reached} reached the goal (
          {analytics.conversion}%)
        </p>
      ) : null}
    </div>
  );
}
