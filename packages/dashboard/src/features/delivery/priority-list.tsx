import { useState } from 'react';
import { Link } from 'react-router';
import { useCan } from '../../app/session';
import { Empty, FormError, Loading, StatusBadge } from '../../kit';
import { type AutoStartItem, kindLabel } from './priority';
import { useAutoStart } from './use-auto-start';

const editorLink = (item: AutoStartItem) =>
  item.kind === 'flow' ? `/flows/${item.id}` : `/content/${item.contentType}/${item.id}`;

/**
 * Everything that can start by itself, highest priority first: drag an item onto another's place
 * (or use its ↑ / ↓ buttons) to reorder, which saves the priorities that make it the service's
 * order; "Bypass caps" per item. Editors and above may change it.
 */
export function PriorityList() {
  const canEdit = useCan('EDITOR');
  const { list, items, move, setBypass, saving, error } = useAutoStart();
  const [dragging, setDragging] = useState<string>();
  if (list.isPending) return <Loading />;
  if (list.isError) return <FormError error={list.error} />;
  return (
    <section className="card pad priority-card" aria-labelledby="priority-title">
      <h2 id="priority-title">Priority</h2>
      <p className="muted small">
        Flows and content that start by themselves, highest priority first. When caps or the cooldown allow
        only some, the higher ones are shown.{canEdit ? ' Drag to reorder.' : ''}
      </p>
      {items.length === 0 ? (
        <Empty title="Nothing starts by itself">
          Flows and content with a manual trigger are never held back.
        </Empty>
      ) : (
        <ol
          className="step-list priority-list"
          aria-label="Priority order (drag to reorder)"
          aria-busy={saving}
        >
          {items.map((item, i) => (
            <li
              key={item.id}
              className={`step-item priority-item${dragging === item.id ? ' dragging' : ''}`}
              draggable={canEdit}
              onDragStart={(e) => {
                setDragging(item.id);
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/plain', item.id);
              }}
              onDragEnd={() => setDragging(undefined)}
              onDragOver={(e) => {
                if (dragging) e.preventDefault();
              }}
              onDrop={(e) => {
                e.preventDefault();
                const from = items.findIndex((x) => x.id === e.dataTransfer.getData('text/plain'));
                setDragging(undefined);
                if (from >= 0) move(from, i);
              }}
              data-item-id={item.id}
            >
              {canEdit ? (
                <span className="drag-handle" aria-hidden="true">
                  ⋮⋮
                </span>
              ) : null}
              <span className="priority-main">
                <span className="step-num">{i + 1}</span>
                <span className="priority-text">
                  <Link to={editorLink(item)} className="priority-name">
                    {item.name}
                  </Link>
                  <span className="priority-meta">
                    <span className="step-type">{kindLabel(item)}</span>
                    <StatusBadge status={item.status} />
                  </span>
                </span>
              </span>
              <label className="checkbox priority-bypass">
                <input
                  type="checkbox"
                  checked={item.bypassCaps}
                  disabled={!canEdit || saving}
                  onChange={(e) => setBypass(item, e.target.checked)}
                  aria-label={`Bypass caps: ${item.name}`}
                />{' '}
                Bypass caps
              </label>
              {canEdit ? (
                <span className="step-moves">
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={`Move ${item.name} up`}
                    disabled={i === 0 || saving}
                    onClick={() => move(i, i - 1)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={`Move ${item.name} down`}
                    disabled={i === items.length - 1 || saving}
                    onClick={() => move(i, i + 1)}
                  >
                    ↓
                  </button>
                </span>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <FormError error={error} />
    </section>
  );
}
