import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../test/render';
import { PolicyForm } from './policy-form';

const POLICY = {
  caps: [{ scope: 'all', max: 3, per: 'day' }],
  cooldownSeconds: 300,
  afterDismissDays: null,
  updatedAt: '2026-12-01T10:00:00.000Z',
};
const putBodies = (calls: { method: string; path: string; body: unknown }[]) =>
  calls.filter((c) => c.method === 'PUT' && c.path === '/api/delivery-policy').map((c) => c.body);

describe('the delivery policy form', () => {
  it('shows the saved policy, adds and removes caps, and saves the whole policy with PUT', async () => {
    const { calls, user } = renderPage(<PolicyForm />, {
      api: {
        'GET /api/delivery-policy': () => ({ data: POLICY }),
        'PUT /api/delivery-policy': ({ body }) => ({
          data: { ...(body as object), updatedAt: POLICY.updatedAt },
        }),
      },
    });
    const max = (await screen.findByLabelText('Cap 1 max')) as HTMLInputElement;
    expect(max.value).toBe('3');
    expect((screen.getByLabelText('Cap 1 scope') as HTMLSelectElement).value).toBe('all');
    expect((screen.getByLabelText('Cooldown (seconds)') as HTMLInputElement).value).toBe('300');
    // null afterDismissDays: each item decides, no days field
    expect((screen.getByLabelText('Dismissed items: each item decides') as HTMLInputElement).checked).toBe(
      true,
    );
    expect(screen.queryByLabelText('Days a dismissed item stays away')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Add cap' }));
    await user.selectOptions(screen.getByLabelText('Cap 2 scope'), 'modal-like');
    await user.clear(screen.getByLabelText('Cap 2 max'));
    await user.type(screen.getByLabelText('Cap 2 max'), '1');
    await user.selectOptions(screen.getByLabelText('Cap 2 period'), 'session');
    await user.click(screen.getByRole('button', { name: 'Add cap' }));
    await user.click(screen.getByRole('button', { name: 'Remove cap 3' }));
    await user.click(screen.getByRole('button', { name: 'Save policy' }));
    await screen.findByText('Policy saved.');
    expect(putBodies(calls)).toEqual([
      {
        caps: [
          { scope: 'all', max: 3, per: 'day' },
          { scope: 'modal-like', max: 1, per: 'session' },
        ],
        cooldownSeconds: 300,
        afterDismissDays: null,
      },
    ]);
  });

  it('sends afterDismissDays as a number when the items do not decide, and null again when they do', async () => {
    const { calls, user } = renderPage(<PolicyForm />, {
      api: {
        'GET /api/delivery-policy': () => ({ data: POLICY }),
        'PUT /api/delivery-policy': ({ body }) => ({
          data: { ...(body as object), updatedAt: POLICY.updatedAt },
        }),
      },
    });
    await user.click(await screen.findByLabelText('Dismissed items: each item decides'));
    const days = screen.getByLabelText('Days a dismissed item stays away');
    await user.clear(days);
    await user.type(days, '30');
    await user.click(screen.getByRole('button', { name: 'Save policy' }));
    await screen.findByText('Policy saved.');
    await user.click(screen.getByLabelText('Dismissed items: each item decides'));
    await user.click(screen.getByRole('button', { name: 'Save policy' }));
    await screen.findByText('Policy saved.');
    expect(putBodies(calls).map((b) => (b as { afterDismissDays: unknown }).afterDismissDays)).toEqual([
      30,
      null,
    ]);
  });

  it("shows the API's 400 next to the field it names, and nothing else claims it", async () => {
    const { calls, user } = renderPage(<PolicyForm />, {
      api: {
        'GET /api/delivery-policy': () => ({ data: POLICY }),
        'PUT /api/delivery-policy': () => ({
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_ERROR',
              message: 'Invalid request',
              details: [
                { path: 'body.caps.0.max', message: 'Too small: expected number to be >=1' },
                { path: 'body.cooldownSeconds', message: 'Too small: expected number to be >=0' },
              ],
            },
          },
        }),
      },
    });
    const max = await screen.findByLabelText('Cap 1 max');
    await user.clear(max);
    await user.type(max, '0');
    const cooldown = screen.getByLabelText('Cooldown (seconds)');
    await user.clear(cooldown);
    await user.type(cooldown, '-5');
    await user.click(screen.getByRole('button', { name: 'Save policy' }));
    const maxField = max.closest('.field') as HTMLElement;
    expect((await within(maxField).findByRole('alert')).textContent).toBe(
      'Too small: expected number to be >=1',
    );
    expect(max.getAttribute('aria-invalid')).toBe('true');
    const cooldownField = screen.getByLabelText('Cooldown (seconds)').closest('.field') as HTMLElement;
    expect(within(cooldownField).getByRole('alert').textContent).toBe('Too small: expected number to be >=0');
    // the scope and period are not blamed, and no general error repeats the field messages
    expect(
      within(screen.getByLabelText('Cap 1 scope').closest('.field') as HTMLElement).queryByRole('alert'),
    ).toBeNull();
    expect(screen.getAllByRole('alert')).toHaveLength(2);
    expect(screen.queryByText('Policy saved.')).toBeNull();
    expect(putBodies(calls)).toEqual([
      { caps: [{ scope: 'all', max: 0, per: 'day' }], cooldownSeconds: -5, afterDismissDays: null },
    ]);
  });

  it('sends what was typed when it is not a number, so the API names that field', async () => {
    const { calls, user } = renderPage(<PolicyForm />, {
      api: {
        'GET /api/delivery-policy': () => ({ data: { ...POLICY, caps: [] } }),
        'PUT /api/delivery-policy': () => ({
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_ERROR',
              message: 'Invalid request',
              details: [
                { path: 'body.caps.0.max', message: 'Invalid input: expected number, received string' },
              ],
            },
          },
        }),
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Add cap' }));
    await user.clear(screen.getByLabelText('Cap 1 max'));
    await user.click(screen.getByRole('button', { name: 'Save policy' }));
    await screen.findByText('Invalid input: expected number, received string');
    expect(putBodies(calls)).toEqual([
      { caps: [{ scope: 'all', max: '', per: 'day' }], cooldownSeconds: 300, afterDismissDays: null },
    ]);
  });

  it('is read-only below ADMIN: fields disabled, no add, remove or save', async () => {
    renderPage(<PolicyForm />, {
      role: 'EDITOR',
      api: { 'GET /api/delivery-policy': () => ({ data: POLICY }) },
    });
    expect(((await screen.findByLabelText('Cap 1 max')) as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText('Cooldown (seconds)') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText('Dismissed items: each item decides') as HTMLInputElement).disabled).toBe(
      true,
    );
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.getByText(/Only owners and admins can change it/)).toBeTruthy();
  });
});
