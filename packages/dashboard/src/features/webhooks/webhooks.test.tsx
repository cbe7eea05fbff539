import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { pageOf } from '../../test/fake-api';
import { renderPage } from '../../test/render';
import { toggled } from './event-types';
import WebhooksPage from './webhooks-page';

const HOOK = {
  id: '0190a000-0000-7000-8000-0000000000h1',
  tenantId: '00000000-0000-4000-8000-0000000000c1',
  url: 'https://hooks.example.com/in',
  description: 'CRM',
  events: ['flow.completed', 'survey.responded'],
  enabled: true,
  disabledReason: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-12-07T10:00:00.000Z',
  updatedAt: '2026-12-07T10:00:00.000Z',
};
const SECRET = `whsec_${'A'.repeat(43)}=`;

describe('event type selection', () => {
  it('keeps the list order and no duplicates', () => {
    expect(toggled(['survey.responded'], 'flow.published', true)).toEqual([
      'flow.published',
      'survey.responded',
    ]);
    expect(toggled(['flow.published', 'flow.published'], 'flow.published', true)).toEqual(['flow.published']);
    expect(toggled(['flow.published', 'journey.exited'], 'flow.published', false)).toEqual([
      'journey.exited',
    ]);
  });
});

describe('the webhooks page', () => {
  it('lists endpoints, creates one with the chosen events, and shows its secret once', async () => {
    const { calls } = renderPage(<WebhooksPage />, {
      api: {
        'GET /api/webhooks': () => pageOf([HOOK]),
        'POST /api/webhooks': () => ({
          status: 201,
          body: {
            data: { ...HOOK, id: 'new', url: 'https://crm.example/hook', secret: SECRET },
            warning: 'once',
          },
        }),
      },
    });
    expect(await screen.findByRole('link', { name: HOOK.url })).toBeTruthy();
    expect(screen.getByText('flow.completed, survey.responded')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'New endpoint' }));
    fireEvent.change(screen.getByLabelText('Endpoint URL'), {
      target: { value: 'https://crm.example/hook' },
    });
    fireEvent.click(screen.getByLabelText('Survey or NPS answered (survey.responded)'));
    fireEvent.click(screen.getByLabelText('Flow completed (flow.completed)')); // off: it was the default
    fireEvent.click(screen.getByLabelText('Flow published (flow.published)'));
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    const secret = (await screen.findByLabelText('Signing secret')) as HTMLInputElement;
    expect(secret.value).toBe(SECRET);
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      url: 'https://crm.example/hook',
      description: '',
      events: ['flow.published', 'survey.responded'],
      enabled: true,
    });
  });

  it("shows the API's refusal of the URL under the URL field", async () => {
    renderPage(<WebhooksPage />, {
      api: {
        'GET /api/webhooks': () => pageOf([]),
        'POST /api/webhooks': () => ({
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_ERROR',
              message: 'url must not reach a private address (10.0.0.1)',
              statusCode: 400,
              category: 'validation',
              details: [{ path: 'url', message: 'must not reach a private address (10.0.0.1)' }],
            },
          },
        }),
      },
    });
    expect(await screen.findByText('No webhook endpoints yet')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'New endpoint' }));
    fireEvent.change(screen.getByLabelText('Endpoint URL'), { target: { value: 'https://10.0.0.1/x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect((await screen.findByText('must not reach a private address (10.0.0.1)')).className).toBe(
      'field-error',
    );
    await waitFor(() =>
      expect(screen.getByLabelText('Endpoint URL').getAttribute('aria-invalid')).toBe('true'),
    );
    expect(screen.queryByLabelText('Signing secret')).toBeNull();
  });
});
