import type { ReactNode } from 'react';

/** The head of a row of a row editor: its title, and the move up / move down / remove buttons. */
export function RowHead({
  noun,
  n,
  count,
  title,
  onMove,
  onRemove,
  min = 1,
}: {
  noun: string;
  n: number;
  count: number;
  title: ReactNode;
  onMove(to: number): void;
  onRemove(): void;
  min?: number;
}) {
  return (
    <div className="list-row-head">
      <strong>{title}</strong>
      <button
        type="button"
        className="icon-btn"
        aria-label={`Move ${noun} ${n} up`}
        disabled={n === 1}
        onClick={() => onMove(n - 2)}
      >
        ↑
      </button>
      <button
        type="button"
        className="icon-btn"
        aria-label={`Move ${noun} ${n} down`}
        disabled={n === count}
        onClick={() => onMove(n)}
      >
        ↓
      </button>
      <button
        type="button"
        className="icon-btn"
        aria-label={`Remove ${noun} ${n}`}
        disabled={count <= min}
        onClick={onRemove}
      >
        ×
      </button>
    </div>
  );
}
