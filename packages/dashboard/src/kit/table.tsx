import type { CSSProperties, ReactNode } from 'react';
import { Button } from './button';

/**
 * A table of records: one column per `Column` (its header, what a row shows in it), native
 * <table> markup so screen readers announce headers with cells.
 */
export interface Column<T> {
  /** The header's text, and the column's identity. */
  name: string;
  /** What the header shows when not its name (an `sr-only` label of an actions column). */
  header?: ReactNode;
  cell(row: T): ReactNode;
  /** A number: right-aligned (the `num` class on the header and the cells). */
  num?: boolean;
  /** Classes and style of the cells (not the header). */
  cellClass?: string;
  cellStyle?: CSSProperties;
}

const cellClass = (c: Column<never>) =>
  [c.num ? 'num' : '', c.cellClass ?? ''].filter(Boolean).join(' ') || undefined;

export function DataTable<T>({
  columns,
  rows,
  rowKey,
  label,
  emptyRow,
}: {
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey(row: T): string;
  label?: string;
  /** What one full-width row says when there are no rows (else the body is empty). */
  emptyRow?: ReactNode;
}) {
  return (
    <table className="table" aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.name} scope="col" className={c.num ? 'num' : undefined}>
              {c.header ?? c.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && emptyRow ? (
          <tr>
            <td colSpan={columns.length} className="muted">
              {emptyRow}
            </td>
          </tr>
        ) : null}
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c) => (
              <td key={c.name} className={cellClass(c)} style={c.cellStyle}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The `meta` of every paginated list the API returns. */
export interface Meta {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** `21–40 of 57`, Previous / Next; nothing for an empty list. */
export function Pagination({
  meta,
  onPage,
  label = 'Pagination',
}: {
  meta?: Meta;
  onPage(page: number): void;
  label?: string;
}) {
  if (!meta || meta.total === 0) return null;
  const first = (meta.page - 1) * meta.limit + 1;
  const last = Math.min(meta.total, meta.page * meta.limit);
  return (
    <nav className="pagination" aria-label={label}>
      <span className="muted">
        {first}–{last} of {meta.total}
      </span>
      <Button variant="ghost" disabled={meta.page <= 1} onClick={() => onPage(meta.page - 1)}>
        Previous
      </Button>
      <span aria-current="page">
        Page {meta.page} of {Math.max(1, meta.totalPages)}
      </span>
      <Button variant="ghost" disabled={meta.page >= meta.totalPages} onClick={() => onPage(meta.page + 1)}>
        Next
      </Button>
    </nav>
  );
}
