import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../app/api';
import type { Routes } from '../../test/fake-api';
import { pageOf } from '../../test/fake-api';
import { pickApi } from '../../test/pick-api';
import { renderPage } from '../../test/render';
import ContentEditorPage from './content-editor-page';

/**
 * A tooltip's and a beacon's target in the content editor (issue 40): the health of the saved
 * selector with the suggestion to apply, the notice when it mostly fails in the last hour, and
 * "Pick element" filling the selector and saving the picked fingerprint with it.
 */

const TIP = '00000000-0000-4000-8000-00000000c001';
const none = { found: 0, healed: 0, missing: 0, ambiguous: 0 };
const item = (type: 'tooltips' | 'beacons', over: Record<string, unknown> = {}) => ({
  id: TIP,
  tenantId: '00000000-0000-4000-8000-0000000000c1',
  siteId: '00000000-0000-4000-8000-0000000000c1',
  contentType: type,
  name: 'Save hint',
  status: 'PUBLISHED',
  audienceId: null,
  triggerConfig: null,
  targetSelector: '.css-a1b2c3-Save',
  // learned from lookups: never sent back by the editor
  targetFingerprint: { v: 1, tag: 'button', name: 'Save card' },
  targetUrl: null,
  ...(type === 'tooltips'
    ? { content: { text: 'Save your card here.' }, position: 'AUTO' }
    : { content: { message: 'New!' }, animation: 'subtle' }),
  version: 1,
  hasUnpublishedChanges: false,
  publishedAt: '2026-01-01T00:00:00.000Z',
  archivedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const health = (over: Record<string, unknown> = {}) => ({
  stepId: null,
  order: 0,
  targetSelector: '.css-a1b2c3-Save',
  ...none,
  suggestedSelector: null,
  lastSeenAt: '2026-01-02T10:00:00.000Z',
  status: 'unknown',
  lastHour: none,
  broken: false,
  ...over,
});
const HEALED = health({
  status: 'warning',
  found: 1,
  healed: 2,
  suggestedSelector: 'button[data-action="save-card"]',
});

function editor(
  type: 'tooltips' | 'beacons' | 'surveys',
  routes: Routes,
  { role = 'OWNER' as Role, id = TIP } = {},
) {
  return renderPage(<ContentEditorPage />, {
    url: `/content/${type}/${id}`,
    path: 'content/:type/:id',
    role,
    api: { 'GET /api/audiences': () => pageOf([]), ...routes },
  });
}
const selectorField = () => screen.getByRole('textbox', { name: 'Target element (CSS selector)' });

afterEach(() => {
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('a tooltip’s target health in the content editor', () => {
  it('shows Healed with the suggested selector, and Apply sets it and re-reads the tooltip', async () => {
    let saved = item('tooltips');
    const { calls, user } = editor('tooltips', {
      'GET /api/content/tooltips/:id': () => ({ data: saved }),
      'GET /api/content/tooltips/:id/target-health': () => ({
        data: [
          saved.targetSelector === '.css-a1b2c3-Save'
            ? HEALED
            : health({ targetSelector: saved.targetSelector }),
        ],
      }),
      'POST /api/content/tooltips/:id/apply-suggested-selector': ({ body }) => {
        saved = item('tooltips', {
          targetSelector: (body as { suggestedSelector: string }).suggestedSelector,
          updatedAt: '2026-01-03T00:00:00.000Z',
        });
        return { data: saved };
      },
    });
    const panel = await screen.findByRole('region', { name: 'Target health' });
    expect(within(panel).getByText('Healed')).toBeTruthy();
    expect(within(panel).getByText(/1 found · 2 healed · 0 missing/)).toBeTruthy();
    expect(within(panel).getByText('button[data-action="save-card"]')).toBeTruthy();
    expect(screen.queryByText(/mostly failing/)).toBeNull();

    await user.click(within(panel).getByRole('button', { name: 'Apply suggested selector' }));
    await waitFor(() => expect(selectorField()).toHaveProperty('value', 'button[data-action="save-card"]'));
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({
      path: `/api/content/tooltips/${TIP}/apply-suggested-selector`,
      body: { suggestedSelector: 'button[data-action="save-card"]' },
    });
    // the new selector has no suggestion: nothing left to apply
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Apply suggested selector' })).toBeNull(),
    );
  });

  it('says so in red when the tooltip mostly fails in the last hour', async () => {
    editor('tooltips', {
      'GET /api/content/tooltips/:id': () => ({ data: item('tooltips') }),
      'GET /api/content/tooltips/:id/target-health': () => ({
        data: [health({ status: 'broken', missing: 6, lastHour: { ...none, missing: 6 }, broken: true })],
      }),
    });
    expect(
      await screen.findByText(/This tooltip is mostly failing to find its element in the last hour/),
    ).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Target health' })).getByText('Broken')).toBeTruthy();
  });

  it('shows no health answered for another selector than the saved one', async () => {
    editor('tooltips', {
      'GET /api/content/tooltips/:id': () => ({ data: item('tooltips', { targetSelector: '#new' }) }),
      'GET /api/content/tooltips/:id/target-health': () => ({ data: [HEALED] }),
    });
    await screen.findByRole('button', { name: 'Pick element' });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('region', { name: 'Target health' })).toBeNull();
  });

  it('offers nothing to apply or pick to a viewer', async () => {
    editor(
      'tooltips',
      {
        'GET /api/content/tooltips/:id': () => ({ data: item('tooltips') }),
        'GET /api/content/tooltips/:id/target-health': () => ({ data: [HEALED] }),
      },
      { role: 'VIEWER' },
    );
    await screen.findByRole('region', { name: 'Target health' });
    expect(screen.queryByRole('button', { name: 'Apply suggested selector' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Pick element' })).toBeNull();
  });

  it('asks no health of a type without a target', async () => {
    const { calls } = editor('surveys', {
      'GET /api/content/surveys/:id': () => ({
        data: { ...item('tooltips'), contentType: 'surveys', questions: [], targetSelector: undefined },
      }),
      'GET /api/content/surveys/:id/responses': () => pageOf([]),
    });
    await screen.findByRole('textbox', { name: 'Name' });
    expect(screen.queryByRole('button', { name: 'Pick element' })).toBeNull();
    expect(calls.some((c) => c.path.endsWith('/target-health'))).toBe(false);
  });
});

describe('Pick element on a beacon', () => {
  it('fills the selector from the pick and saves the picked fingerprint with it', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    localStorage.setItem('guidance:pick-site', 'https://app.acme.com/billing');
    const { calls, user } = editor('beacons', {
      'GET /api/content/beacons/:id': () => ({ data: item('beacons') }),
      'GET /api/content/beacons/:id/target-health': () => ({ data: [health()] }),
      ...pickApi(
        { itemKind: 'content', itemId: TIP, stepId: null },
        { selector: '#pay', fingerprint: { v: 1, tag: 'button', id: 'pay' } },
      ),
      'PATCH /api/content/beacons/:id': ({ body }) => ({ data: { ...item('beacons'), ...(body as object) } }),
    });
    await user.click(await screen.findByRole('button', { name: 'Pick element' }));
    expect(screen.getByRole('textbox', { name: 'Page URL' })).toHaveProperty(
      'value',
      'https://app.acme.com/billing',
    );
    await user.click(screen.getByRole('button', { name: 'Open and pick' }));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith(
        'https://app.acme.com/billing#guidance-pick=gpk_tok',
        '_blank',
        'noopener',
      ),
    );
    expect(calls.find((c) => c.path === '/api/pick-tokens')?.body).toEqual({
      itemKind: 'content',
      itemId: TIP,
    });
    await waitFor(() => expect(selectorField()).toHaveProperty('value', '#pay'), { timeout: 5_000 });
    expect(screen.getByText('Picked: the selector is filled in. Save the beacon to keep it.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({
      targetSelector: '#pay',
      targetFingerprint: { v: 1, tag: 'button', id: 'pay' },
    });
  });

  it('never sends the learned fingerprint back: a hand-typed selector is saved without one', async () => {
    const { calls, user } = editor('beacons', {
      'GET /api/content/beacons/:id': () => ({ data: item('beacons') }),
      'GET /api/content/beacons/:id/target-health': () => ({ data: [health()] }),
      'PATCH /api/content/beacons/:id': ({ body }) => ({ data: { ...item('beacons'), ...(body as object) } }),
    });
    await user.clear(await screen.findByRole('textbox', { name: 'Target element (CSS selector)' }));
    await user.type(selectorField(), '#checkout');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    const body = calls.find((c) => c.method === 'PATCH')?.body as Record<string, unknown>;
    expect(body.targetSelector).toBe('#checkout');
    expect(body).not.toHaveProperty('targetFingerprint');
  });
});
