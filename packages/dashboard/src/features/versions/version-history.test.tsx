import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Routes } from '../../test/fake-api';
import { renderPage, SIGNED_IN } from '../../test/render';
import { PublishButton, VersionBadges } from './version-bar';
import { History } from './version-history';
import type { VersionTarget } from './versions-api';

const FLOW: VersionTarget = { base: '/api/flows', id: 'f1', noun: 'flow', itemKeys: [['flow', 'f1']] };
const AUDIENCE: VersionTarget = {
  base: '/api/audiences',
  id: 'a1',
  noun: 'audience',
  draftless: true,
  itemKeys: [['audience', 'a1']],
};
const OTHER = '00000000-0000-4000-8000-0000000000b2';
const at = '2026-12-07T10:00:00.000Z';
const v = (version: number, extra: object = {}) => ({
  version,
  note: null,
  publishedBy: SIGNED_IN.user.id,
  publishedAt: at,
  bytes: 100,
  live: false,
  ...extra,
});
const LIST = {
  data: [
    v(3, { live: true, note: 'Shorter copy' }),
    v(2, { publishedBy: OTHER }),
    v(1, { publishedBy: null }),
  ],
};
const members = { data: [{ userId: OTHER, email: 'ana@acme.test' }], meta: {} };
const step = (id: string, title: string) => ({ id, type: 'TOOLTIP', content: { title } });
const DIFF = {
  data: {
    from: 1,
    to: 3,
    fields: [{ path: 'name', from: 'Welcome', to: 'Welcome tour' }],
    collections: {
      steps: {
        added: [{ id: 's4', index: 2, entry: step('s4', 'Invite your team') }],
        removed: [{ id: 's9', index: 0, entry: step('s9', 'Old intro') }],
        moved: [{ id: 's2', from: 2, to: 0 }],
        changed: [{ id: 's1', fields: [{ path: 'content.body', from: 'Hi', to: 'Hello' }] }],
      },
    },
  },
};
const V3 = {
  data: {
    ...v(3),
    snapshot: { name: 'Welcome tour', steps: [step('s2', 'Pick a plan'), step('s1', 'Say hi')] },
  },
};

const render = (target: VersionTarget, api: Routes, unpublished = false) =>
  renderPage(<History target={target} canEdit hasUnpublishedChanges={unpublished} />, {
    api: { 'GET /api/tenants/members': () => members, ...api },
  });

describe('the version history', () => {
  it('lists the versions: number, live, note, who and when', async () => {
    render(FLOW, { 'GET /api/flows/:id/versions': () => LIST });
    const rows = within(await screen.findByRole('table', { name: 'Versions' })).getAllByRole('row');
    expect(rows[1]!.textContent).toContain('v3 live');
    expect(rows[1]!.textContent).toContain('Shorter copy');
    expect(rows[1]!.textContent).toContain('You');
    expect(await within(rows[2]!).findByText('ana@acme.test')).toBeTruthy();
    expect(rows[3]!.textContent).toContain('Scheduler');
    // the live version cannot be rolled back to; the newest is the working copy's source already
    expect(within(rows[1]!).queryByRole('button', { name: /Roll back/ })).toBeNull();
    expect(within(rows[1]!).queryByRole('button', { name: /Restore/ })).toBeNull();
    expect(within(rows[3]!).getByRole('button', { name: 'Roll back to version 1' })).toBeTruthy();
  });

  it('says when there is nothing yet', async () => {
    render(FLOW, { 'GET /api/flows/:id/versions': () => ({ data: [] }) });
    expect(
      await screen.findByText(/No versions yet: publishing the flow takes its first version/),
    ).toBeTruthy();
  });

  it('compares two versions: fields old → new, steps added, removed, moved and changed', async () => {
    const { user, calls } = render(FLOW, {
      'GET /api/flows/:id/versions': () => LIST,
      'GET /api/flows/:id/versions/:a/diff/:b': () => DIFF,
      'GET /api/flows/:id/versions/:n': () => V3,
    });
    await user.selectOptions(await screen.findByLabelText('From'), '1');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    const fields = await screen.findByRole('table', { name: 'Fields changed from version 1 to 3' });
    expect(within(fields).getAllByRole('row')[1]!.textContent).toBe('nameWelcomeWelcome tour');
    const steps = screen.getByRole('region', { name: 'steps changes' });
    const items = within(steps)
      .getAllByRole('listitem')
      .map((li) => li.firstChild?.textContent + ' ' + li.textContent?.replace(/^\w+ /, ''));
    expect(items[0]).toBe('added step 3: “Invite your team” (tooltip)');
    expect(items[1]).toBe('removed step 1: “Old intro” (tooltip)');
    expect(items[2]).toBe('moved “Pick a plan” (tooltip): position 3 → 1');
    expect(items[3]).toContain('changed “Say hi” (tooltip)');
    const changed = within(steps).getByRole('table', { name: /Changes of step/ });
    expect(within(changed).getAllByRole('row')[1]!.textContent).toBe('content.bodyHiHello');
    expect(calls.some((c) => c.path === '/api/flows/f1/versions/1/diff/3')).toBe(true);
  });

  it('shows one version', async () => {
    const { user } = render(FLOW, {
      'GET /api/flows/:id/versions': () => LIST,
      'GET /api/flows/:id/versions/:n': () => V3,
    });
    await user.click(await screen.findByRole('button', { name: 'View version 3' }));
    const shown = await screen.findByRole('region', { name: 'Version 3' });
    expect(shown.textContent).toContain('Welcome tour');
    expect(within(shown).getByRole('list', { name: 'Steps' }).textContent).toContain('Pick a plan');
  });

  it('rolls back after a confirmation, warning that unpublished changes are replaced', async () => {
    const { user, calls } = render(
      FLOW,
      {
        'GET /api/flows/:id/versions': () => LIST,
        'POST /api/flows/:id/versions/:n/publish': () => ({ data: { id: 'f1', version: 4 } }),
      },
      true,
    );
    expect(
      await screen.findByText(/unpublished changes: restoring or rolling back replaces them/),
    ).toBeTruthy();
    // the live version can be restored: it discards the unpublished changes
    expect(screen.getByRole('button', { name: 'Restore version 3' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Roll back to version 1' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Confirm roll back' });
    expect(confirm.textContent).toContain('your users get it at once');
    expect(confirm.textContent).toContain('Your unpublished changes are replaced.');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Roll back to v1' }));
    expect(await screen.findByText(/Rolled back: version 1 is live again/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/api/flows/f1/versions/1/publish',
    ]);
  });

  it('cancels a roll back without a call', async () => {
    const { user, calls } = render(FLOW, { 'GET /api/flows/:id/versions': () => LIST });
    await user.click(await screen.findByRole('button', { name: 'Roll back to version 2' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('says in words when a roll back has nothing to do (409) or the version is gone (404)', async () => {
    let status = 409;
    const { user } = render(FLOW, {
      'GET /api/flows/:id/versions': () => LIST,
      'POST /api/flows/:id/versions/:n/publish': () => ({
        status,
        body: {
          error: { code: status === 409 ? 'INVALID_STATE_TRANSITION' : 'CONTENT_NOT_FOUND', message: 'x' },
        },
      }),
    });
    await user.click(await screen.findByRole('button', { name: 'Roll back to version 2' }));
    await user.click(screen.getByRole('button', { name: 'Roll back to v2' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Nothing to do: version 2 is what is live already.',
    );
    status = 404;
    await user.click(screen.getByRole('button', { name: 'Roll back to version 1' }));
    await user.click(screen.getByRole('button', { name: 'Roll back to v1' }));
    expect((await screen.findByRole('alert')).textContent).toBe('That version no longer exists.');
  });

  it('restores a version to the working copy (not published)', async () => {
    const { user, calls } = render(FLOW, {
      'GET /api/flows/:id/versions': () => LIST,
      'POST /api/flows/:id/versions/:n/restore': () => ({ data: { id: 'f1' } }),
    });
    await user.click(await screen.findByRole('button', { name: 'Restore version 2' }));
    expect(screen.getByRole('alertdialog', { name: 'Confirm restore' }).textContent).toContain(
      'nothing changes for your users until you publish',
    );
    await user.click(screen.getByRole('button', { name: 'Restore v2' }));
    expect(
      await screen.findByText('Version 2 restored to the working copy: publish to make it live.'),
    ).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/api/flows/f1/versions/2/restore',
    ]);
  });

  it('an audience: the newest is current, restore applies at once, no roll back', async () => {
    const { user, calls } = render(AUDIENCE, {
      'GET /api/audiences/:id/versions': () => ({ data: [v(2), v(1, { live: true })] }),
      'POST /api/audiences/:id/versions/:n/restore': () => ({ data: { id: 'a1' } }),
    });
    const rows = within(await screen.findByRole('table', { name: 'Versions' })).getAllByRole('row');
    expect(rows[1]!.textContent).toContain('v2 current');
    expect(rows[2]!.textContent).not.toContain('current');
    expect(screen.queryByRole('button', { name: /Roll back/ })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Restore version 1' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('as it was in version 1, at once');
    await user.click(screen.getByRole('button', { name: 'Restore v1' }));
    expect(await screen.findByText('Version 1 restored: the audience is as it was then.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/api/audiences/a1/versions/1/restore',
    ]);
  });

  it('a viewer sees the history but no restore or roll back', async () => {
    renderPage(<History target={FLOW} canEdit={false} />, {
      role: 'VIEWER',
      api: { 'GET /api/tenants/members': () => members, 'GET /api/flows/:id/versions': () => LIST },
    });
    await screen.findByRole('table', { name: 'Versions' });
    expect(screen.queryByRole('button', { name: /Restore|Roll back/ })).toBeNull();
    expect(screen.getAllByRole('button', { name: /View version/ })).toHaveLength(3);
  });
});

describe('the version badges and publish', () => {
  it('shows the live version and unpublished changes', () => {
    renderPage(<VersionBadges version={3} hasUnpublishedChanges />);
    expect(screen.getByText('v3 live')).toBeTruthy();
    expect(screen.getByText('Unpublished changes')).toBeTruthy();
  });

  it('publishes with the note typed, and shows a refusal in the dialog', async () => {
    let answer: unknown = { data: { id: 'f1', version: 2 } };
    const published: unknown[] = [];
    const { user, calls } = renderPage(
      <PublishButton target={FLOW} onPublished={(n) => published.push(n)} />,
      {
        api: { 'POST /api/flows/:id/publish': () => answer },
      },
    );
    await user.click(screen.getByRole('button', { name: 'Publish' }));
    await user.type(screen.getByLabelText('Note (optional)'), 'New welcome copy');
    answer = {
      status: 409,
      body: { error: { code: 'INVALID_STATE_TRANSITION', message: 'Nothing to publish' } },
    };
    await user.click(screen.getAllByRole('button', { name: 'Publish' }).at(-1)!);
    expect((await screen.findByRole('alert')).textContent).toBe('Nothing to publish');
    answer = { data: { id: 'f1', version: 2 } };
    await user.click(screen.getAllByRole('button', { name: 'Publish' }).at(-1)!);
    await screen.findByRole('button', { name: 'Publish' });
    expect(calls.map((c) => c.body)).toEqual([{ note: 'New welcome copy' }, { note: 'New welcome copy' }]);
    await vi.waitFor(() => expect(published).toEqual([2]));
  });
});
