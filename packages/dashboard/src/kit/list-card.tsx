import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { FormError } from './form-error';
import { Loading } from './page';
import { type Column, DataTable, type Meta, Pagination } from './table';

/**
 * A list inside a card of a page with several (settings' members, API keys, audit log): the
 * card's title and actions, an action's error, the table (or what an empty list shows), its pages.
 */
export function ListCard<T extends { id: string }>({
  title,
  actions,
  error,
  query,
  columns,
  empty,
  pages,
}: {
  title: string;
  actions?: ReactNode;
  /** The error of an action on a row (remove, revoke…). */
  error?: unknown;
  query: UseQueryResult<{ data: T[]; meta: Meta }>;
  columns: readonly Column<T>[];
  empty?: ReactNode;
  pages: { label: string; onPage(page: number): void };
}) {
  return (
    <div className="card">
      <div className="card-header">
        <h2>{title}</h2>
        {actions}
      </div>
      <FormError error={error} />
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <FormError error={query.error} />
      ) : query.data.data.length === 0 && empty ? (
        empty
      ) : (
        <DataTable columns={columns} rows={query.data.data} rowKey={(row) => row.id} />
      )}
      <Pagination meta={query.data?.meta} onPage={pages.onPage} label={pages.label} />
    </div>
  );
}
