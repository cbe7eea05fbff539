import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { pageOf, type Routes } from '../../test/fake-api';
import { renderPage } from '../../test/render';
import EndUserPage from './end-user-page';
import EndUsersPage from './end-users-page';

const ADA = {
  id: '0190a000-0000-7000-8000-00000000ada1',
  userId: 'ada',
  anonymousId: null,
  traits: { email: 'ada@lovelace.dev', name: 'Ada Lovelace', plan: 'pro', seats: 3 },
  firstSeenAt: '2026-11-02T09:00:00.000Z',
  lastSeenAt: '2026-11-03T10:00:00.000Z',
};
const VISITOR = {
  id: '0190a000-0000-7000-8000-0000000000b2',
  userId: null,
  anonymousId: 'anon-42',
  traits: {},
  firstSeenAt: '2026-11-02T09:00:00.000Z',
  lastSeenAt: '2026-11-04T10:00:00.000Z',
};
const DETAIL = {
  ...ADA,
  createdAt: '2026-11-02T09:00:00.000Z',
  itemStates: [
    {
      itemId: 'f-1',
      kind: 'flow',
      contentType: null,
      name: 'Welcome tour',
      completedAt: '2026-11-03T10:00:00.000Z',
      dismissedAt: null,
    },
    {
      itemId: 't-1',
      kind: 'content',
      contentType: 'tooltips',
      name: 'Save tip',
      completedAt: null,
      dismissedAt: '2026-11-03T10:00:00.000Z',
    },
    {
      itemId: 'x-1',
      kind: null,
      contentType: null,
      name: null,
      completedAt: '2026-11-03T10:00:00.000Z',
      dismissedAt: null,
    },
  ],
};
const EXPLAINED = {
  url: 'https://app.test/home',
  endUserId: ADA.id,
  items: [
    {
      kind: 'flow',
      contentType: null,
      id: 'f-2',
      name: 'Billing tour',
      decision: 'SUPPRESSED',
      reason: 'COOLDOWN',
      detail: '25 s',
    },
    {
      kind: 'flow',
      contentType: null,
      id: 'f-3',
      name: 'Pro tour',
      decision: 'SHOWN',
      reason: null,
      detail: null,
    },
  ],
};

const cells = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) =>
      within(r)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );

const userPage = (role: 'OWNER' | 'VIEWER' = 'OWNER', url = '/end-users/ada', extra: Routes = {}) =>
  renderPage(<EndUserPage />, {
    url,
    path: '/end-users/:id',
    role,
    api: {
      'GET /api/end-users/:id': ({ params }) =>
        params.id === 'ada' || params.id === ADA.id
          ? { data: DETAIL }
          : {
              status: 404,
              body: {
                error: {
                  code: 'NOT_FOUND',
                  message: 'End user not found',
                  statusCode: 404,
                  category: 'NOT_FOUND',
                },
              },
            },
      'GET /api/end-users/:id/delivery': () => ({ data: EXPLAINED }),
      ...extra,
    },
  });

describe('the end-user list', () => {
  it('lists end users with their email and name, each linked to its page; anonymous ones by their anonymous id', async () => {
    renderPage(<EndUsersPage />, { api: { 'GET /api/end-users': () => pageOf([VISITOR, ADA]) } });
    const table = await screen.findByRole('table');
    expect(cells(table).map((r) => r.slice(0, 3))).toEqual([
      ['Anonymousanon-42', '—', '—'],
      ['ada', 'ada@lovelace.dev', 'Ada Lovelace'],
    ]);
    expect(within(table).getByRole('link', { name: 'ada' }).getAttribute('href')).toBe(
      `/end-users/${ADA.id}`,
    );
  });

  it('searches through the API, the search in the page’s URL', async () => {
    const { calls, router } = renderPage(<EndUsersPage />, {
      api: {
        'GET /api/end-users': ({ query }) => pageOf(query.get('search') === 'ad' ? [ADA] : [VISITOR, ADA]),
      },
    });
    await screen.findByRole('table');
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search end users' }), {
      target: { value: 'ad' },
    });
    await waitFor(() => expect(screen.queryByText('anon-42')).toBeNull());
    expect(calls.at(-1)?.query.get('search')).toBe('ad');
    expect(router.state.location.search).toBe('?search=ad');
  });

  it('says when nobody matches, and when there is nobody yet', async () => {
    renderPage(<EndUsersPage />, { url: '/?search=zz', api: { 'GET /api/end-users': () => pageOf([]) } });
    expect(await screen.findByText('No end user matches')).toBeTruthy();
  });
});

describe('the end-user page', () => {
  it('shows their profile, traits, first and last seen, and what they completed or dismissed', async () => {
    userPage();
    expect(await screen.findByRole('heading', { name: /ada/ })).toBeTruthy();
    const profile = screen.getByRole('region', { name: 'Profile' });
    expect(within(profile).getByText('ada@lovelace.dev')).toBeTruthy();
    expect(within(profile).getByText('seats').nextSibling?.textContent).toBe('3');
    expect(within(profile).getByText(ADA.id)).toBeTruthy();
    const items = screen.getByRole('table', { name: 'Completed and dismissed items' });
    const rows = cells(items);
    expect(rows.map((r) => r[0])).toEqual(['Welcome tour', 'Save tip', 'Deleted item']);
    expect(rows[0]![2]).toBe('—');
    expect(rows[1]![1]).toBe('—');
    expect(within(items).getByRole('link', { name: 'Save tip' }).getAttribute('href')).toBe(
      '/content/tooltips/t-1',
    );
    expect(within(profile).getByText('First seen').nextSibling?.textContent).toMatch(/2026/);
  });

  it('previews what they are shown on a URL, shown items first, by their service id', async () => {
    const { calls, router } = userPage();
    await screen.findByRole('heading', { name: /ada/ });
    fireEvent.change(screen.getByLabelText('Page URL'), { target: { value: 'https://app.test/home' } });
    fireEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const table = await screen.findByRole('table', { name: 'What this user is shown' });
    expect(cells(table).map((r) => [r[0], r[2], r[3], r[4]])).toEqual([
      ['Pro tour', 'shown', '—', '—'],
      ['Billing tour', 'suppressed', 'COOLDOWN', '25 s'],
    ]);
    const asked = calls.find((c) => c.path.endsWith('/delivery'))!;
    expect(asked.path).toBe(`/api/end-users/${ADA.id}/delivery`);
    expect(asked.query.get('url')).toBe('https://app.test/home');
    expect(router.state.location.search).toContain('url=https%3A%2F%2Fapp.test%2Fhome');
    expect(screen.getByText(/1 of 2 shown to/).textContent).toContain('ada');
  });

  it('says so for an unknown end user', async () => {
    userPage('OWNER', '/end-users/nobody');
    expect(await screen.findByText('No such end user')).toBeTruthy();
  });

  it('downloads their data as JSON', async () => {
    const created: Blob[] = [];
    Object.assign(URL, {
      createObjectURL: vi.fn((b: Blob) => {
        created.push(b);
        return 'blob:x';
      }),
      revokeObjectURL: vi.fn(),
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    userPage('OWNER', '/end-users/ada', {
      'GET /api/privacy/exports/:userId': ({ params }) => ({ data: { userId: params.userId, events: [] } }),
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Export data' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(JSON.parse(await created[0]!.text())).toEqual({ userId: 'ada', events: [] });
    click.mockRestore();
  });

  it('deletes them only after a confirmation, then shows the request’s status until it completes', async () => {
    let reads = 0;
    const request = {
      id: 'd-1',
      userId: 'ada',
      attempts: 0,
      removed: {},
      lastError: null,
      completedAt: null,
      createdAt: DETAIL.createdAt,
      updatedAt: DETAIL.createdAt,
    };
    const { calls } = userPage('OWNER', '/end-users/ada', {
      'POST /api/privacy/deletions': () => ({
        status: 202,
        body: { data: { ...request, status: 'pending' } },
      }),
      'GET /api/privacy/deletions/:id': () => {
        reads++;
        return { data: { ...request, status: 'completed', completedAt: DETAIL.createdAt } };
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete user' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete ada?' });
    expect(within(dialog).getByText(/cannot be undone/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Delete user' }));
    fireEvent.click(
      within(screen.getByRole('dialog', { name: 'Delete ada?' })).getByRole('button', {
        name: 'Delete user',
      }),
    );
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ userId: 'ada' }));
    expect(await screen.findByText('pending')).toBeTruthy();
    await waitFor(() => expect(screen.getByText('completed')).toBeTruthy(), { timeout: 5_000 });
    expect(reads).toBeGreaterThan(0);
    expect((screen.getAllByRole('button', { name: 'Delete user' })[0] as HTMLButtonElement).disabled).toBe(
      true,
    );
  });

  it('offers no privacy actions below ADMIN', async () => {
    userPage('VIEWER');
    await screen.findByRole('heading', { name: /ada/ });
    expect(screen.queryByRole('button', { name: 'Export data' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete user' })).toBeNull();
  });
});
