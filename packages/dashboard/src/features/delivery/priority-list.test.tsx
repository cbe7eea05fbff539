import { createEvent, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { pageOf } from '../../test/fake-api';
import { renderPage } from '../../test/render';
import { type AutoStartItem, priorityChanges } from './priority';
import { PriorityList } from './priority-list';

const item = (id: string, priority: number): AutoStartItem => ({
  kind: 'flow',
  contentType: null,
  id,
  name: id,
  status: 'PUBLISHED',
  priority,
  bypassCaps: false,
  publishedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});
const plan = (order: AutoStartItem[]) => priorityChanges(order).map((c) => [c.item.id, c.priority]);

describe('the priorities of a new order (pure)', () => {
  it('changes nothing when the order is already strictly descending', () => {
    expect(plan([item('a', 5), item('b', 3), item('c', -2)])).toEqual([]);
  });
  it('moves one item down by lowering it alone', () => {
    // A (5) dragged below B (3) and C (1)
    expect(plan([item('b', 3), item('c', 1), item('a', 5)])).toEqual([['a', 0]]);
  });
  it('moves one item up by raising it alone', () => {
    expect(plan([item('c', 1), item('a', 5), item('b', 3)])).toEqual([['c', 6]]);
  });
  it('breaks ties, so the order no longer depends on publication dates', () => {
    expect(plan([item('a', 0), item('b', 0), item('c', 0)])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });
  it('makes any order strictly descending', () => {
    const order = [item('a', 0), item('b', 7), item('c', 7), item('d', -3), item('e', 2)];
    const byId = new Map(priorityChanges(order).map((c) => [c.item.id, c.priority]));
    const result = order.map((i) => byId.get(i.id) ?? i.priority);
    expect(result.every((p, i) => i === 0 || p < result[i - 1]!)).toBe(true);
  });
});

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z`;
const FLOWS = [
  {
    id: 'f-welcome',
    name: 'Welcome tour',
    status: 'PUBLISHED',
    trigger: { type: 'URL_MATCH', config: {} },
    priority: 0,
    bypassCaps: false,
    publishedAt: at(1),
    createdAt: at(1),
  },
  {
    id: 'f-billing',
    name: 'Billing tour',
    status: 'DRAFT',
    trigger: null,
    priority: 10,
    bypassCaps: false,
    publishedAt: null,
    createdAt: at(2),
  },
  {
    id: 'f-manual',
    name: 'Help tour',
    status: 'PUBLISHED',
    trigger: { type: 'MANUAL' },
    priority: 50,
    bypassCaps: false,
    publishedAt: at(3),
    createdAt: at(3),
  },
  {
    id: 'f-old',
    name: 'Old tour',
    status: 'ARCHIVED',
    trigger: null,
    priority: 99,
    bypassCaps: false,
    publishedAt: at(3),
    createdAt: at(3),
  },
];
const ANNOUNCEMENTS = [
  {
    id: 'a-sale',
    name: 'Sale',
    contentType: 'announcements',
    status: 'PUBLISHED',
    triggerConfig: null,
    priority: 0,
    bypassCaps: true,
    publishedAt: at(5),
    createdAt: at(5),
  },
  {
    id: 'a-side',
    name: 'Side news',
    contentType: 'announcements',
    status: 'PUBLISHED',
    triggerConfig: { type: 'side_button' },
    priority: 0,
    bypassCaps: false,
    publishedAt: at(5),
    createdAt: at(5),
  },
];
const api = {
  'GET /api/flows': () => pageOf(FLOWS),
  'GET /api/content/announcements': () => pageOf(ANNOUNCEMENTS),
  'GET /api/content/:type': () => pageOf([]),
  'PATCH /api/flows/:id': ({ params }: { params: Record<string, string> }) => ({ data: { id: params.id } }),
  'PATCH /api/content/:type/:id': ({ params }: { params: Record<string, string> }) => ({
    data: { id: params.id },
  }),
};
const names = () =>
  screen.getAllByRole('listitem').map((li) => li.querySelector('.priority-name')?.textContent);
const patches = (calls: { method: string; path: string; body: unknown }[]) =>
  calls.filter((c) => c.method === 'PATCH').map((c) => [c.path, c.body]);

function drag(from: HTMLElement, to: HTMLElement) {
  const data = new Map<string, string>();
  const dataTransfer = {
    setData: (k: string, v: string) => data.set(k, v),
    getData: (k: string) => data.get(k) ?? '',
    effectAllowed: 'none',
  };
  fireEvent(from, Object.assign(createEvent.dragStart(from), { dataTransfer }));
  fireEvent(to, Object.assign(createEvent.dragOver(to), { dataTransfer }));
  fireEvent(to, Object.assign(createEvent.drop(to), { dataTransfer }));
}

describe('the priority list', () => {
  it('lists what starts by itself in delivery order (priority, then the most recently published), not manual or archived items', async () => {
    renderPage(<PriorityList />, { api });
    await screen.findByText('Welcome tour');
    expect(names()).toEqual(['Billing tour', 'Sale', 'Welcome tour']);
    expect((screen.getByLabelText('Bypass caps: Sale') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Bypass caps: Welcome tour') as HTMLInputElement).checked).toBe(false);
  });

  it('a drag to the top saves the priorities that make it the service order (one PATCH per changed item)', async () => {
    const { calls } = renderPage(<PriorityList />, { api });
    await screen.findByText('Welcome tour');
    const rows = screen.getAllByRole('listitem');
    drag(rows[2]!, rows[0]!);
    expect(names()).toEqual(['Welcome tour', 'Billing tour', 'Sale']);
    await waitFor(() => expect(patches(calls)).toHaveLength(1));
    // Welcome (0) above Billing (10): raised to 11; Billing (10) stays above Sale (0)
    expect(patches(calls)).toEqual([['/api/flows/f-welcome', { priority: 11 }]]);
  });

  it('moves with the keyboard too (↑ button), patching a content item through its type', async () => {
    const { calls, user } = renderPage(<PriorityList />, { api });
    await screen.findByText('Welcome tour');
    await user.click(screen.getByRole('button', { name: 'Move Sale up' }));
    expect(names()).toEqual(['Sale', 'Billing tour', 'Welcome tour']);
    // Sale (0) above Billing (10): raised to 11, the others already descend
    await waitFor(() => expect(patches(calls)).toHaveLength(1));
    expect(patches(calls)).toEqual([['/api/content/announcements/a-sale', { priority: 11 }]]);
  });

  it('of two equally few changes, raises rather than lowers (priorities stay non-negative)', async () => {
    const { calls, user } = renderPage(<PriorityList />, { api });
    await screen.findByText('Welcome tour');
    await user.click(screen.getByRole('button', { name: 'Move Sale down' }));
    expect(names()).toEqual(['Billing tour', 'Welcome tour', 'Sale']);
    // Welcome and Sale tie at 0: Welcome raised to 1 (not Sale lowered to -1)
    await waitFor(() => expect(patches(calls)).toHaveLength(1));
    expect(patches(calls)).toEqual([['/api/flows/f-welcome', { priority: 1 }]]);
  });

  it('toggles bypassCaps with a PATCH', async () => {
    const { calls, user } = renderPage(<PriorityList />, { api });
    await user.click(await screen.findByLabelText('Bypass caps: Welcome tour'));
    await waitFor(() => expect(patches(calls)).toEqual([['/api/flows/f-welcome', { bypassCaps: true }]]));
  });

  it('puts the saved order back and says why when a PATCH is refused', async () => {
    const { user } = renderPage(<PriorityList />, {
      api: {
        ...api,
        'PATCH /api/flows/:id': () => ({
          status: 403,
          body: { error: { code: 'FORBIDDEN', message: 'Not allowed' } },
        }),
      },
    });
    await screen.findByText('Welcome tour');
    await user.click(screen.getByRole('button', { name: 'Move Welcome tour up' }));
    await screen.findByText('Not allowed');
    await waitFor(() => expect(names()).toEqual(['Billing tour', 'Sale', 'Welcome tour']));
  });

  it('gives a viewer nothing to move or toggle', async () => {
    renderPage(<PriorityList />, { api, role: 'VIEWER' });
    await screen.findByText('Welcome tour');
    expect(screen.queryByRole('button', { name: /^Move / })).toBeNull();
    expect(screen.getAllByRole('listitem').every((li) => li.getAttribute('draggable') === 'false')).toBe(
      true,
    );
    expect((screen.getByLabelText('Bypass caps: Sale') as HTMLInputElement).disabled).toBe(true);
  });
});
