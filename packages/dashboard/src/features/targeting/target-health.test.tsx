import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pickApi } from '../../test/pick-api';
import { renderPage } from '../../test/render';
import { TargetHealthPanel } from './health-panel';
import { PickElement } from './pick-element';
import {
  afterPoll,
  brokenInLastHour,
  editorPath,
  healthBadge,
  type PickState,
  pickedFingerprint,
  pickTokenBody,
  pickUrl,
  stepsNeedingAttention,
  type TargetAttention,
  type TargetHealth,
  targetOf,
} from './target-health';

const FLOW = '00000000-0000-4000-8000-00000000f001';
const STEP = '00000000-0000-4000-8000-00000000a001';
const TIP = '00000000-0000-4000-8000-00000000c001';
const stepTarget = { kind: 'flow' as const, flowId: FLOW, stepId: STEP };
const none = { found: 0, healed: 0, missing: 0, ambiguous: 0 };
const h = (over: Partial<TargetHealth> = {}): TargetHealth => ({
  stepId: STEP,
  order: 0,
  targetSelector: '#save',
  ...none,
  suggestedSelector: null,
  lastSeenAt: null,
  status: 'unknown',
  lastHour: none,
  broken: false,
  ...over,
});

describe('target health rules', () => {
  it('badges a step by its 7 days, the last hour first', () => {
    expect(healthBadge(undefined)).toBeNull();
    expect(healthBadge(h())?.label).toBe('No data');
    expect(healthBadge(h({ status: 'healthy', found: 5 }))).toMatchObject({ label: 'Healthy', tone: 'ok' });
    expect(healthBadge(h({ status: 'warning', found: 5, healed: 2 }))).toMatchObject({
      label: 'Healed',
      tone: 'warn',
    });
    expect(healthBadge(h({ status: 'warning', found: 5, missing: 1 }))).toMatchObject({ label: 'Warning' });
    expect(healthBadge(h({ status: 'broken', missing: 5 }))).toMatchObject({ label: 'Broken', tone: 'bad' });
    expect(healthBadge(h({ status: 'healthy', found: 50, broken: true }))).toMatchObject({
      label: 'Broken',
      detail: expect.stringContaining('last hour'),
    });
  });

  it('lists the steps needing attention in order, and those broken in the last hour', () => {
    const list = [
      h({ stepId: 'c', order: 2, status: 'broken', missing: 4 }),
      h({ stepId: 'a', order: 0, status: 'healthy', found: 3 }),
      h({ stepId: 'b', order: 1, status: 'warning', healed: 1, suggestedSelector: '#x' }),
      h({ stepId: 'd', order: 3, broken: true }),
    ];
    expect(stepsNeedingAttention(list).map((x) => x.stepId)).toEqual(['b', 'c', 'd']);
    expect(brokenInLastHour(list).map((x) => x.stepId)).toEqual(['d']);
  });

  it('builds the pick link from the site URL, replacing its fragment; refuses what is not http(s)', () => {
    expect(pickUrl('https://app.acme.com/settings?tab=1#old', 'gpk_abc')).toBe(
      'https://app.acme.com/settings?tab=1#guidance-pick=gpk_abc',
    );
    expect(pickUrl('  http://localhost:3000  ', 't')).toBe('http://localhost:3000/#guidance-pick=t');
    expect(pickUrl('javascript:alert(1)', 't')).toBeNull();
    expect(pickUrl('app.acme.com', 't')).toBeNull();
  });

  it('names a target by where it lives: its editor, its pick token, a needs-attention entry', () => {
    const tip = { kind: 'content' as const, type: 'tooltips' as const, id: TIP };
    expect(editorPath(stepTarget)).toBe(`/flows/${FLOW}`);
    expect(editorPath(tip)).toBe(`/content/tooltips/${TIP}`);
    expect(pickTokenBody(stepTarget)).toEqual({ itemKind: 'flow', itemId: FLOW, stepId: STEP });
    expect(pickTokenBody(tip)).toEqual({ itemKind: 'content', itemId: TIP });
    const entry = (over: Partial<TargetAttention>): TargetAttention => ({
      ...h(),
      itemKind: 'content',
      itemId: TIP,
      itemName: 'Help tip',
      contentType: 'tooltips',
      attention: 'week',
      ...over,
    });
    expect(targetOf(entry({}))).toEqual(tip);
    expect(targetOf(entry({ contentType: 'beacons' }))).toEqual({ ...tip, type: 'beacons' });
    expect(targetOf(entry({ contentType: 'surveys' }))).toBeNull();
    expect(targetOf(entry({ itemKind: 'flow', itemId: FLOW, contentType: null }))).toEqual(stepTarget);
  });

  it('saves a picked fingerprint only with the selector it was picked for', () => {
    const picked = { selector: '#save', fingerprint: { v: 1, tag: 'button' } };
    expect(pickedFingerprint(picked, '#save')).toEqual({ targetFingerprint: { v: 1, tag: 'button' } });
    expect(pickedFingerprint(picked, '#save-2')).toEqual({});
    expect(pickedFingerprint({ selector: '#save', fingerprint: null }, '#save')).toEqual({});
    expect(pickedFingerprint(undefined, '#save')).toEqual({});
  });

  it('moves from waiting to picked or expired on a poll, and stays otherwise', () => {
    const waiting: PickState = { state: 'waiting', id: 'p', url: 'u' };
    const pending = { status: 'pending' as const, selector: null, fingerprint: null };
    expect(afterPoll(waiting, pending)).toBe(waiting);
    expect(afterPoll(waiting, { status: 'picked', selector: '#a', fingerprint: { v: 1 } })).toEqual({
      state: 'picked',
      selector: '#a',
      fingerprint: { v: 1 },
    });
    expect(afterPoll(waiting, { ...pending, status: 'expired' })).toEqual({ state: 'expired' });
    expect(afterPoll({ state: 'idle' }, { status: 'picked', selector: '#a', fingerprint: null })).toEqual({
      state: 'idle',
    });
  });
});

describe('TargetHealthPanel', () => {
  it('applies the suggested selector in one click, sending the suggestion seen', async () => {
    const onApplied = vi.fn();
    const { calls } = renderPage(
      <TargetHealthPanel
        target={stepTarget}
        health={h({ status: 'warning', healed: 3, suggestedSelector: 'button::-p-text("Save")' })}
        canEdit
        onApplied={onApplied}
      />,
      { api: { 'POST /api/flows/:id/steps/:stepId/apply-suggested-selector': () => ({ data: {} }) } },
    );
    expect(screen.getByText('button::-p-text("Save")')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Apply suggested selector' }));
    await waitFor(() => expect(onApplied).toHaveBeenCalled());
    expect(calls).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: `/api/flows/${FLOW}/steps/${STEP}/apply-suggested-selector`,
        body: { suggestedSelector: 'button::-p-text("Save")' },
      }),
    ]);
  });

  it('offers nothing to apply to a viewer, or without a suggestion', () => {
    renderPage(
      <TargetHealthPanel
        target={stepTarget}
        health={h({ suggestedSelector: '#x' })}
        canEdit={false}
        onApplied={vi.fn()}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Apply suggested selector' })).toBeNull();
  });
});

describe('PickElement', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    localStorage.clear();
  });

  it('asks for the site URL, opens it with the token, polls, and fills the form when picked', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const onPicked = vi.fn();
    const { calls, user } = renderPage(
      <PickElement target={stepTarget} saveLabel="the step" onPicked={onPicked} />,
      {
        api: pickApi(
          { itemKind: 'flow', itemId: FLOW, stepId: STEP },
          { selector: '#save', fingerprint: { v: 1, tag: 'button' } },
        ),
      },
    );
    await user.click(screen.getByRole('button', { name: 'Pick element' }));
    const url = await screen.findByRole('textbox', { name: 'Page URL' });
    await user.click(screen.getByRole('button', { name: 'Open and pick' }));
    expect(await screen.findByText(/Enter the http\(s\) address/)).toBeTruthy();
    await user.type(url, 'https://app.acme.com/settings');
    await user.click(screen.getByRole('button', { name: 'Open and pick' }));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith(
        'https://app.acme.com/settings#guidance-pick=gpk_tok',
        '_blank',
        'noopener',
      ),
    );
    expect(calls[0]).toMatchObject({
      path: '/api/pick-tokens',
      body: { itemKind: 'flow', itemId: FLOW, stepId: STEP },
    });
    expect(screen.getByText(/Waiting for your pick/)).toBeTruthy();
    await waitFor(
      () =>
        expect(onPicked).toHaveBeenCalledWith({ selector: '#save', fingerprint: { v: 1, tag: 'button' } }),
      {
        timeout: 5_000,
      },
    );
    expect(screen.getByText('Picked: the selector is filled in. Save the step to keep it.')).toBeTruthy();
    expect(localStorage.getItem('guidance:pick-site')).toBe('https://app.acme.com/settings');
  });
});
