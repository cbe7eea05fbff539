import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { pageOf } from '../../test/fake-api';
import { renderPage } from '../../test/render';
import { PrivacyRequests } from './privacy-requests';

const REQUEST = {
  id: '0190a000-0000-7000-8000-0000000000d1',
  userId: 'user-42',
  status: 'completed',
  attempts: 1,
  removed: { end_users: 1, events: 12, nps_responses: 0 },
  lastError: null,
  completedAt: '2026-12-07T10:00:05.000Z',
  createdAt: '2026-12-07T10:00:00.000Z',
  updatedAt: '2026-12-07T10:00:05.000Z',
};

describe('privacy requests', () => {
  it('lists requests with their status and what was removed', async () => {
    renderPage(<PrivacyRequests />, {
      api: {
        'GET /api/privacy/deletions': () =>
          pageOf([REQUEST, { ...REQUEST, id: 'x', userId: 'user-7', status: 'pending', completedAt: null }]),
      },
    });
    expect(await screen.findByText('user-42')).toBeTruthy();
    expect(screen.getByText('end_users 1, events 12')).toBeTruthy();
    expect(screen.getByText('completed')).toBeTruthy();
    expect(screen.getByText('pending')).toBeTruthy();
  });

  it('requests a deletion only after a confirmation, and shows a refusal under the field', async () => {
    let posts = 0;
    const { calls } = renderPage(<PrivacyRequests />, {
      api: {
        'GET /api/privacy/deletions': () => pageOf([]),
        'POST /api/privacy/deletions': () => {
          posts++;
          return { status: 202, body: { data: { ...REQUEST, status: 'pending', userId: 'user-9' } } };
        },
      },
    });
    const field = await screen.findByLabelText("End user's userId");
    fireEvent.change(field, { target: { value: 'user-9' } });
    fireEvent.click(screen.getByRole('button', { name: 'Request deletion' }));
    expect(screen.getByText(/cannot be undone/)).toBeTruthy();
    expect(posts).toBe(0);
    fireEvent.click(screen.getByRole('button', { name: 'Confirm deletion' }));
    await waitFor(() => expect(posts).toBe(1));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ userId: 'user-9' });
  });

  it('downloads the export as a JSON file', async () => {
    const created: Blob[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return 'blob:export';
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderPage(<PrivacyRequests />, {
      api: {
        'GET /api/privacy/deletions': () => pageOf([]),
        'GET /api/privacy/exports/user-5': () => ({
          status: 200,
          body: { data: { userId: 'user-5', events: [] } },
        }),
      },
    });
    fireEvent.change(await screen.findByLabelText("End user's userId"), { target: { value: 'user-5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Download export (JSON)' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(JSON.parse(await created[0]!.text())).toEqual({ userId: 'user-5', events: [] });
    click.mockRestore();
  });

  it('tells editors and viewers it is for owners and admins', async () => {
    renderPage(<PrivacyRequests />, { role: 'EDITOR' });
    expect(await screen.findByText('Only owners and admins can handle privacy requests.')).toBeTruthy();
  });
});
