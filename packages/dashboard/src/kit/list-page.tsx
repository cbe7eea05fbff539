import { keepPreviousData, type UseQueryResult, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { PAGE_SIZE } from '../app/api';
import { FormError } from './form-error';
import { Empty, Loading, Page } from './page';
import { type Column, DataTable, type Meta, Pagination } from './table';

/**
 * The list page every collection of the dashboard uses (flows, content, audiences, journeys,
 * experiments): filters in the URL, one page of records from the API, a table, the pages, and an
 * empty state that offers to create the first record (or says that nothing matches the filters).
 */

/** The list's filters and page, kept in the URL's query so a list can be linked and reloaded. */
export function useListParams() {
  const [params, setParams] = useSearchParams();
  return {
    page: Number(params.get('page') ?? '1') || 1,
    get: (key: string) => params.get(key) ?? '',
    /** New filter values (empty removes one): back to the first page, replacing the URL (no history entry per keystroke). */
    setFilter(patch: Record<string, string>) {
      const next = new URLSearchParams(params);
      for (const [k, v] of Object.entries(patch)) v ? next.set(k, v) : next.delete(k);
      next.delete('page');
      setParams(next, { replace: true });
    },
    /** Another page: a history entry, so Back returns to the page before. */
    setPage(page: number) {
      const next = new URLSearchParams(params);
      next.set('page', String(page));
      setParams(next);
    },
  };
}

export interface Paging {
  page: string;
  limit: string;
}

/** One page of a list (`PAGE_SIZE` records), the previous page kept on screen while the next loads. */
export function usePagedQuery<T>(
  key: readonly unknown[],
  page: number,
  fetchPage: (paging: Paging) => Promise<T>,
  /** `refetchInterval`: poll (a list of jobs in progress); `enabled: false`: do not fetch. */
  options: { refetchInterval?: number; enabled?: boolean } = {},
) {
  return useQuery({
    queryKey: [...key, { page }],
    queryFn: () => fetchPage({ page: String(page), limit: String(PAGE_SIZE) }),
    placeholderData: keepPreviousData,
    ...options,
  });
}

/** The search box of a list's toolbar (by name, unless its placeholder says otherwise). */
export function SearchFilter({
  label,
  value,
  onChange,
  placeholder = 'Search by name',
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  placeholder?: string;
}) {
  return (
    <input
      type="search"
      className="search"
      aria-label={label}
      placeholder={placeholder}
      defaultValue={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

export interface EmptyState {
  title: string;
  body: ReactNode;
}

export interface ListViewProps<T> {
  query: UseQueryResult<{ data: T[]; meta: Meta }>;
  columns: readonly Column<T>[];
  rowKey?(row: T): string;
  /** What an empty list says, and the action that creates the first record. */
  empty: EmptyState & { action?: ReactNode };
  /** When a filter is set: what an empty list says instead (and no create action). */
  noMatch?: EmptyState & { when: boolean };
  /** The pagination's accessible name (`Flow pages`) and where a page change goes. */
  pages: { label: string; onPage(page: number): void };
}

/** Loading, the API's error, the empty state, or the table with its pages. */
export function ListView<T extends { id: string }>({
  query,
  columns,
  rowKey = (row) => row.id,
  empty,
  noMatch,
  pages,
}: ListViewProps<T>) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <FormError error={query.error} />;
  if (query.data.data.length === 0) {
    return noMatch?.when ? (
      <Empty title={noMatch.title} action={null}>
        {noMatch.body}
      </Empty>
    ) : (
      <Empty title={empty.title} action={empty.action}>
        {empty.body}
      </Empty>
    );
  }
  return (
    <div className="card">
      <DataTable columns={columns} rows={query.data.data} rowKey={rowKey} />
      <Pagination meta={query.data.meta} onPage={pages.onPage} label={pages.label} />
    </div>
  );
}

/** A list page: the page's header, what goes above the toolbar (tabs), the filters, the list, and its dialogs. */
export function ListPage<T extends { id: string }>({
  title,
  description,
  actions,
  above,
  filters,
  children,
  ...list
}: ListViewProps<T> & {
  title: string;
  description: string;
  actions?: ReactNode;
  above?: ReactNode;
  filters?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <Page title={title} description={description} actions={actions}>
      {above}
      {filters ? <div className="toolbar">{filters}</div> : null}
      <ListView {...list} />
      {children}
    </Page>
  );
}
