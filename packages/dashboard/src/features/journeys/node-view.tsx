import { Handle, type NodeProps, Position } from '@xyflow/react';
import { type JNode, NODE_LABEL, summary } from './journey-model';
import { useContentItems } from './node-forms/content-form';

/** A node on the canvas: its type, summary, analytics and publish problem; handles in (top) and out (bottom). */
export function JourneyNodeView({ data, selected }: NodeProps<JNode>) {
  return (
    <div
      className={`jnode jnode-${data.type.toLowerCase()}${selected ? ' selected' : ''}${data.error ? ' invalid' : ''}`}
    >
      {data.type !== 'TRIGGER' ? <Handle type="target" position={Position.Top} /> : null}
      <div className="jnode-type">{NODE_LABEL[data.type]}</div>
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

/** The name of a CONTENT node's item (the picker's list, shared through the query cache). */
function ContentName({ kind, id }: { kind: string; id: string | null }) {
  const items = useContentItems(kind);
  if (!id) return <> (pick one)</>;
  const name = items.data?.find((x) => x.id === id)?.name;
  return <>: {name ?? id.slice(0, 8)}</>;
}
