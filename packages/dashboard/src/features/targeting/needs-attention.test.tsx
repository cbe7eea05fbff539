import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../test/render';
import NeedsAttentionPage from './needs-attention-page';
import type { TargetAttention } from './target-health';

const FLOW = '00000000-0000-4000-8000-00000000f001';
const STEP = '00000000-0000-4000-8000-00000000a001';
const TIP = '00000000-0000-4000-8000-00000000c001';
const BEACON = '00000000-0000-4000-8000-00000000c002';
const none = { found: 0, healed: 0, missing: 0, ambiguous: 0 };
const entry = (over: Partial<TargetAttention>): TargetAttention => ({
  stepId: null,
  order: 0,
  targetSelector: '#x',
  ...none,
  missing: 5,
  suggestedSelector: null,
  lastSeenAt: '2026-01-02T10:00:00.000Z',
  status: 'broken',
  lastHour: none,
  broken: false,
  itemKind: 'content',
  itemId: TIP,
  itemName: 'Save hint',
  contentType: 'tooltips',
  attention: 'week',
  ...over,
});

describe('Needs attention', () => {
  it('lists failing steps, tooltips and beacons, each linking to its editor; Apply goes to its own endpoint', async () => {
    const { calls, user } = renderPage(<NeedsAttentionPage />, {
      api: {
        'GET /api/target-health/needs-attention': () => ({
          data: [
            entry({ broken: true, attention: 'hour', suggestedSelector: 'button[data-action="save"]' }),
            entry({ itemId: BEACON, itemName: 'New export', contentType: 'beacons' }),
            entry({
              itemKind: 'flow',
              itemId: FLOW,
              stepId: STEP,
              order: 1,
              itemName: 'Billing tour',
              contentType: null,
            }),
          ],
        }),
        'POST /api/content/tooltips/:id/apply-suggested-selector': () => ({ data: {} }),
      },
    });
    const tip = await screen.findByRole('link', { name: 'Save hint' });
    expect(tip.getAttribute('href')).toBe(`/content/tooltips/${TIP}`);
    expect(screen.getByRole('link', { name: 'New export' }).getAttribute('href')).toBe(
      `/content/beacons/${BEACON}`,
    );
    expect(screen.getByRole('link', { name: 'Billing tour, step 2' }).getAttribute('href')).toBe(
      `/flows/${FLOW}`,
    );
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[1]!.textContent)).toEqual([
      'Tooltip',
      'Beacon',
      'Flow step',
    ]);
    expect(screen.getByText(/One target is mostly failing in the last hour/)).toBeTruthy();

    await user.click(within(rows[0]!).getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(screen.getByText('Suggested selector applied.')).toBeTruthy());
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({
      path: `/api/content/tooltips/${TIP}/apply-suggested-selector`,
      body: { suggestedSelector: 'button[data-action="save"]' },
    });
  });
});
