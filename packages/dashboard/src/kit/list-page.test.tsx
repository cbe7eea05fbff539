import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderPage } from '../test/render';
import { Button } from './button';
import { ListPage, type Paging, SearchFilter, useListParams, usePagedQuery } from './list-page';
import { StatusBadge } from './page';
import { Tabs } from './tabs';

type Thing = { id: string; name: string; status: string; size: number };
const thing = (i: number): Thing => ({ id: `t${i}`, name: `Thing ${i}`, status: 'DRAFT', size: i * 10 });
const meta = (page: number, total: number) => ({ page, limit: 2, total, totalPages: Math.ceil(total / 2) });

/** A list page as a feature writes one: status tabs and a search in the URL, a page of records, a create action. */
function ThingsPage({
  fetchPage,
}: {
  fetchPage(filters: { status: string; search: string }, paging: Paging): Promise<unknown>;
}) {
  const list = useListParams();
  const status = list.get('status');
  const search = list.get('search');
  const things = usePagedQuery(
    ['things', { status, search }],
    list.page,
    (paging) =>
      fetchPage({ status, search }, paging) as Promise<{ data: Thing[]; meta: ReturnType<typeof meta> }>,
  );
  return (
    <ListPage
      title="Things"
      description="Every thing."
      actions={<Button>New thing</Button>}
      filters={
        <>
          <Tabs
            label="Status"
            tabs={[
              { value: '', label: 'All' },
              { value: 'DRAFT', label: 'Drafts' },
            ]}
            value={status}
            onChange={(v) => list.setFilter({ status: v })}
          />
          <SearchFilter
            label="Search things"
            value={search}
            onChange={(v) => list.setFilter({ search: v })}
          />
        </>
      }
      query={things}
      columns={[
        { name: 'Name', cell: (t) => t.name },
        { name: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
        { name: 'Size', num: true, cell: (t) => t.size },
      ]}
      empty={{
        title: 'No things yet',
        body: 'Make the first one.',
        action: <Button>Create the first thing</Button>,
      }}
      noMatch={{ when: Boolean(status || search), title: 'No thing matches', body: 'Try another search.' }}
      pages={{ label: 'Thing pages', onPage: list.setPage }}
    />
  );
}

describe('the list page kit', () => {
  it('shows a page of records in a table: a header per column, a row per record, numbers right-aligned', async () => {
    const fetchPage = vi.fn(async () => ({ data: [thing(1), thing(2)], meta: meta(1, 2) }));
    renderPage(<ThingsPage fetchPage={fetchPage} />, { url: '/things' });
    expect(screen.getByRole('status').textContent).toContain('Loading');
    const table = await screen.findByRole('table');
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((th) => th.textContent);
    expect(headers).toEqual(['Name', 'Status', 'Size']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(
      rows.map((r) =>
        within(r)
          .getAllByRole('cell')
          .map((td) => td.textContent),
      ),
    ).toEqual([
      ['Thing 1', 'draft', '10'],
      ['Thing 2', 'draft', '20'],
    ]);
    expect(within(rows[0]!).getAllByRole('cell')[2]!.className).toBe('num');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Things');
    expect(screen.getByRole('button', { name: 'New thing' })).toBeTruthy();
    expect(fetchPage).toHaveBeenCalledWith({ status: '', search: '' }, { page: '1', limit: '20' });
  });

  it('offers to create the first record when the list is empty, and only says "no match" when filtered', async () => {
    const fetchPage = vi.fn(async () => ({ data: [], meta: meta(1, 0) }));
    const { user } = renderPage(<ThingsPage fetchPage={fetchPage} />, { url: '/things' });
    expect(await screen.findByRole('heading', { name: 'No things yet' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Create the first thing' })).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Thing pages' })).toBeNull();

    await user.click(screen.getByRole('tab', { name: 'Drafts' }));
    expect(await screen.findByRole('heading', { name: 'No thing matches' })).toBeTruthy();
    expect(screen.getByText('Try another search.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create the first thing' })).toBeNull();
  });

  it('shows the API error instead of the table', async () => {
    const fetchPage = vi.fn(async () => {
      throw new Error('The service is down');
    });
    renderPage(<ThingsPage fetchPage={fetchPage} />, { url: '/things' });
    expect((await screen.findByRole('alert')).textContent).toBe('The service is down');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('pages through the list: Previous and Next, the range shown, a history entry per page', async () => {
    const fetchPage = vi.fn(async (_f: unknown, paging: Paging) => {
      const page = Number(paging.page);
      return { data: page === 1 ? [thing(1), thing(2)] : [thing(3)], meta: meta(page, 3) };
    });
    const { user, router } = renderPage(<ThingsPage fetchPage={fetchPage} />, {
      url: '/things?search=thing',
    });
    const pages = await screen.findByRole('navigation', { name: 'Thing pages' });
    expect(pages.textContent).toContain('1–2 of 3');
    expect((within(pages).getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(
      true,
    );

    await user.click(within(pages).getByRole('button', { name: 'Next' }));
    await screen.findByText('Thing 3');
    expect(router.state.location.search).toBe('?search=thing&page=2');
    expect(router.state.historyAction).toBe('PUSH');
    expect(screen.getByRole('navigation', { name: 'Thing pages' }).textContent).toContain('3–3 of 3');
    expect(fetchPage).toHaveBeenLastCalledWith({ status: '', search: 'thing' }, { page: '2', limit: '20' });
  });

  it('a filter goes to the URL, replacing it, and back to the first page', async () => {
    const fetchPage = vi.fn(async () => ({ data: [thing(1)], meta: meta(1, 1) }));
    const { user, router } = renderPage(<ThingsPage fetchPage={fetchPage} />, { url: '/things?page=3' });
    await screen.findByText('Thing 1');
    await user.type(screen.getByRole('searchbox', { name: 'Search things' }), 'ab');
    await waitFor(() => expect(router.state.location.search).toBe('?search=ab'));
    expect(router.state.historyAction).toBe('REPLACE');
    expect(fetchPage).toHaveBeenLastCalledWith({ status: '', search: 'ab' }, { page: '1', limit: '20' });

    await user.click(screen.getByRole('tab', { name: 'Drafts' }));
    await waitFor(() => expect(router.state.location.search).toBe('?search=ab&status=DRAFT'));
    expect(screen.getByRole('tab', { name: 'Drafts' }).getAttribute('aria-selected')).toBe('true');
  });
});
