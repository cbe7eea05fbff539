import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderPage, SIGNED_IN } from '../../test/render';
import JourneyPage from './journey-page';

/** The journey page's versions: the badges, "Publish changes", and the shared History dialog. */

const ID = '00000000-0000-4000-8000-0000000000d1';
const TRIGGER = '00000000-0000-4000-8000-0000000000e1';
const EXIT = '00000000-0000-4000-8000-0000000000e2';
const at = '2026-12-07T10:00:00.000Z';
const nodes = [
  {
    id: TRIGGER,
    type: 'TRIGGER',
    config: { triggerType: 'MANUAL', triggerConfig: {} },
    contentId: null,
    position: { x: 0, y: 0 },
  },
  { id: EXIT, type: 'EXIT', config: {}, contentId: null, position: { x: 0, y: 120 } },
];
const journey = (extra: object = {}) => ({
  data: {
    id: ID,
    tenantId: SIGNED_IN.tenant.id,
    siteId: '00000000-0000-4000-8000-0000000000f1',
    name: 'Onboarding',
    description: null,
    status: 'PUBLISHED',
    audienceId: null,
    settings: { reentry: 'never' },
    goalConfig: null,
    allowAnonymous: false,
    publishedAt: at,
    archivedAt: null,
    createdAt: at,
    updatedAt: at,
    _count: { nodes: 2, edges: 1, enrollments: 3 },
    version: 2,
    hasUnpublishedChanges: true,
    audience: null,
    nodes,
    edges: [{ sourceNodeId: TRIGGER, targetNodeId: EXIT, label: null }],
    ...extra,
  },
});
const version = (n: number, live = false) => ({
  version: n,
  note: n === 2 ? 'Shorter wait' : null,
  publishedBy: SIGNED_IN.user.id,
  publishedAt: at,
  bytes: 300,
  live,
});

const render = (extra: object = {}) =>
  renderPage(<JourneyPage />, {
    url: `/journeys/${ID}`,
    path: '/journeys/:id',
    api: {
      'GET /api/journeys/:id': () => journey(extra),
      'GET /api/tenants/members': () => ({ data: [], meta: {} }),
      'GET /api/journeys/:id/versions': () => ({ data: [version(2, true), version(1)] }),
      'GET /api/journeys/:id/versions/:a/diff/:b': () => ({
        data: {
          from: 1,
          to: 2,
          fields: [{ path: 'name', from: 'Welcome', to: 'Onboarding' }],
          collections: {
            nodes: {
              added: [{ id: EXIT, index: 1, entry: nodes[1] }],
              removed: [],
              moved: [],
              changed: [],
            },
            edges: {
              added: [
                { id: `${TRIGGER}->${EXIT}`, index: 0, entry: { sourceNodeId: TRIGGER, targetNodeId: EXIT } },
              ],
              removed: [],
              moved: [],
              changed: [],
            },
          },
        },
      }),
      'GET /api/journeys/:id/versions/:n': () => ({
        data: { ...version(1), snapshot: { name: 'Welcome', nodes: [nodes[0]], edges: [] } },
      }),
      'POST /api/journeys/:id/versions/:n/publish': () =>
        journey({ version: 3, hasUnpublishedChanges: false }),
    },
  });

describe('the journey page and its versions', () => {
  it('shows the live version and the unpublished changes, and publishes them as the next version', async () => {
    render();
    expect(await screen.findByText('v2 live')).toBeTruthy();
    expect(screen.getByText('Unpublished changes')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Publish changes' })).toBeTruthy();
  });

  it('a draft never published: no badge, "Publish"', async () => {
    render({ status: 'DRAFT', version: null, hasUnpublishedChanges: false, publishedAt: null });
    expect(await screen.findByRole('button', { name: 'Publish' })).toBeTruthy();
    expect(screen.queryByText(/live$/)).toBeNull();
    expect(screen.queryByText('Unpublished changes')).toBeNull();
  });

  it('opens the history: compares two versions (nodes and edges) and rolls back under /api/journeys', async () => {
    const { user, calls } = render();
    await user.click(await screen.findByRole('button', { name: 'History' }));
    const dialog = await screen.findByRole('dialog', { name: 'Version history' });
    const rows = within(await within(dialog).findByRole('table', { name: 'Versions' })).getAllByRole('row');
    expect(rows[1]!.textContent).toContain('v2 live');
    expect(rows[1]!.textContent).toContain('Shorter wait');

    await user.selectOptions(within(dialog).getByLabelText('From'), '1');
    await user.click(within(dialog).getByRole('button', { name: 'Compare' }));
    const nodeChanges = await within(dialog).findByRole('region', { name: 'nodes changes' });
    expect(nodeChanges.textContent).toContain('added node 2: exit');
    const edgeChanges = within(dialog).getByRole('region', { name: 'edges changes' });
    expect(edgeChanges.textContent).toContain('added edge 1: trigger → exit');

    await user.click(within(dialog).getByRole('button', { name: 'Roll back to version 1' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Confirm roll back' });
    expect(confirm.textContent).toContain('Your unpublished changes are replaced.');
    await user.click(within(confirm).getByRole('button', { name: 'Roll back to v1' }));
    expect(await screen.findByText(/Rolled back: version 1 is live again/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      `/api/journeys/${ID}/versions/1/publish`,
    ]);
  });
});
