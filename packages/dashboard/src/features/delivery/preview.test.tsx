import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../test/render';
import { Preview } from './preview';

const EXPLAINED = {
  url: 'https://app.test/home',
  endUserId: 'eu-1',
  items: [
    {
      kind: 'flow',
      contentType: null,
      id: 'f-2',
      name: 'Billing tour',
      decision: 'SUPPRESSED',
      reason: 'LOWER_PRIORITY',
      detail: 'cooldown',
    },
    {
      kind: 'flow',
      contentType: null,
      id: 'f-1',
      name: 'Welcome tour',
      decision: 'SHOWN',
      reason: null,
      detail: null,
    },
    {
      kind: 'content',
      contentType: 'announcements',
      id: 'a-1',
      name: 'Sale',
      decision: 'SUPPRESSED',
      reason: 'CAPPED',
      detail: '1 per day (all)',
    },
  ],
};

describe('preview as this user', () => {
  it('asks for the user and URL, then shows every item with its decision, reason and detail', async () => {
    const { calls, user } = renderPage(<Preview />, {
      api: { 'GET /api/end-users/:id/delivery': () => ({ data: EXPLAINED }) },
    });
    expect(screen.getByRole('heading', { name: 'Preview as this user' })).toBeTruthy();
    await user.type(screen.getByLabelText('User'), 'ana@acme');
    await user.type(screen.getByLabelText('Page URL'), 'https://app.test/home');
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    const table = await screen.findByRole('table', { name: 'What this user is shown' });
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) =>
        within(r)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      );
    expect(rows).toEqual([
      ['Welcome tour', 'Flow', 'shown', '—', '—'],
      ['Billing tour', 'Flow', 'suppressed', 'LOWER_PRIORITY', 'cooldown'],
      ['Sale', 'Announcements', 'suppressed', 'CAPPED', '1 per day (all)'],
    ]);
    expect(screen.getByText(/1 of 3/).textContent).toContain('shown to ana@acme on https://app.test/home');
    const call = calls.find((c) => c.path.startsWith('/api/end-users/'))!;
    expect(call.path).toBe('/api/end-users/ana%40acme/delivery');
    expect(call.query.get('url')).toBe('https://app.test/home');
  });

  it('says "no such end user" on a 404', async () => {
    const { user } = renderPage(<Preview />, {
      api: {
        'GET /api/end-users/:id/delivery': () => ({
          status: 404,
          body: { error: { code: 'NOT_FOUND', message: 'End user not found' } },
        }),
      },
    });
    await user.type(screen.getByLabelText('User'), 'nobody');
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect((await screen.findByRole('alert')).textContent).toBe('No such end user: nobody');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('reads the user and URL from the page URL (a link to a preview)', async () => {
    const { calls } = renderPage(<Preview />, {
      url: '/?user=eu-1&url=https%3A%2F%2Fapp.test%2Fhome',
      api: { 'GET /api/end-users/:id/delivery': () => ({ data: EXPLAINED }) },
    });
    await screen.findByRole('table');
    expect((screen.getByLabelText('User') as HTMLInputElement).value).toBe('eu-1');
    expect(calls.filter((c) => c.path === '/api/end-users/eu-1/delivery')).toHaveLength(1);
  });
});
