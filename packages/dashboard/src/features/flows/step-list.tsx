import { useState } from 'react';
import { humanize } from '../../kit';
import { HealthBadge, type TargetHealth } from '../targeting';
import { type Step, stepTitle } from './flow-model';

/**
 * The steps in order: select one to edit it; reorder by dragging a step onto another's place, or
 * with its ↑ / ↓ buttons (the keyboard's way). `onMove(from, to)` gets positions in this list.
 */
export function StepList({
  steps,
  selectedId,
  canEdit,
  onSelect,
  onMove,
  healthOf = () => undefined,
}: {
  steps: readonly Step[];
  selectedId: string | undefined;
  canEdit: boolean;
  onSelect(id: string): void;
  onMove(from: number, to: number): void;
  /** A step's target health, for its badge (issue 40). */
  healthOf?(stepId: string): TargetHealth | undefined;
}) {
  const [dragging, setDragging] = useState<string>();
  return (
    <ol className="step-list" aria-label="Steps (drag to reorder)">
      {steps.map((s, i) => (
        <li
          key={s.id}
          className={`step-item${s.id === selectedId ? ' selected' : ''}${dragging === s.id ? ' dragging' : ''}`}
          draggable={canEdit}
          onDragStart={(e) => {
            setDragging(s.id);
            e.dataTransfer.effectAllowed = 'move';
            e.dataTransfer.setData('text/plain', s.id);
          }}
          onDragEnd={() => setDragging(undefined)}
          onDragOver={(e) => {
            if (dragging) e.preventDefault();
          }}
          onDrop={(e) => {
            e.preventDefault();
            const from = steps.findIndex((x) => x.id === e.dataTransfer.getData('text/plain'));
            setDragging(undefined);
            if (from >= 0) onMove(from, i);
          }}
          data-step-id={s.id}
        >
          {canEdit ? (
            <span className="drag-handle" aria-hidden="true">
              ⋮⋮
            </span>
          ) : null}
          <button
            type="button"
            className="step-select"
            aria-current={s.id === selectedId ? 'true' : undefined}
            onClick={() => onSelect(s.id)}
          >
            <span className="step-num">{i + 1}</span>
            <span className="step-title">{stepTitle(s)}</span>
            <span className="step-type">{humanize(s.type)}</span>
            <HealthBadge health={healthOf(s.id)} className="step-health" />
          </button>
          {canEdit ? (
            <span className="step-moves">
              <button
                type="button"
                className="icon-btn"
                aria-label={`Move step ${i + 1} up`}
                disabled={i === 0}
                onClick={() => onMove(i, i - 1)}
              >
                ↑
              </button>
              <button
                type="button"
                className="icon-btn"
                aria-label={`Move step ${i + 1} down`}
                disabled={i === steps.length - 1}
                onClick={() => onMove(i, i + 1)}
              >
                ↓
              </button>
            </span>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
