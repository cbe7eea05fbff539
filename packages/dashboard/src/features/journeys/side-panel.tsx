import { Button, Notice, TextField } from '../../kit';
import { type JNode, NODE_LABEL } from './journey-model';
import { NodeForm } from './node-forms/node-form';
import type { useJourneyCanvas } from './use-journey-canvas';

type Canvas = ReturnType<typeof useJourneyCanvas>;

/** The panel beside the canvas: the selected node's form, the selected edge's label, or how to start. */
export function SidePanel({ canvas, editable }: { canvas: Canvas; editable: boolean }) {
  const node = canvas.nodes.find((n) => n.selected);
  const edge = canvas.edges.find((e) => e.selected);
  if (node)
    return (
      <NodeConfig
        key={node.id}
        node={node}
        disabled={!editable}
        onChange={(p) => canvas.updateNode(node.id, p)}
        onDelete={() => canvas.deleteNode(node.id)}
      />
    );
  if (edge)
    return (
      <div style={{ display: 'grid', gap: 12 }}>
        <h2>Edge</h2>
        <TextField
          label="Edge label"
          value={String(edge.label ?? '')}
          disabled={!editable}
          onChange={(e) => canvas.setEdgeLabel(edge.id, e.target.value)}
          hint="CONDITION: true / false; GOAL CHECK: met / not_met; WAIT FOR EVENT: event / timeout; SPLIT: a branch label; others: none."
        />
        {editable ? (
          <Button variant="danger" onClick={() => canvas.deleteEdge(edge.id)}>
            Delete edge
          </Button>
        ) : null}
      </div>
    );
  return (
    <div className="muted small" style={{ display: 'grid', gap: 8 }}>
      <h2 style={{ color: 'var(--text)' }}>Configure</h2>
      <p>
        Add nodes from the palette, drag them, and connect a node's bottom handle to another's top. Select a
        node or an edge to configure it.
      </p>
      <p>Publishing checks the journey: problems are shown on the nodes they concern.</p>
    </div>
  );
}

/** The selected node: its type, its publish problem, its form, and Delete node. */
export function NodeConfig({
  node,
  disabled,
  onChange,
  onDelete,
}: {
  node: JNode;
  disabled: boolean;
  onChange(p: Partial<JNode['data']>): void;
  onDelete(): void;
}) {
  return (
    <form aria-label={`${NODE_LABEL[node.data.type]} node`} onSubmit={(e) => e.preventDefault()}>
      <h2>{NODE_LABEL[node.data.type]}</h2>
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
