import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { pageOf } from '../../test/fake-api';
import { renderPage } from '../../test/render';
import { ExperimentForm } from './experiment-form';

const api = {
  'GET /api/flows': () =>
    pageOf([
      { id: 'f1', name: 'Onboarding A' },
      { id: 'f2', name: 'Onboarding B' },
    ]),
  'GET /api/audiences': () => pageOf([{ id: 'a1', name: 'Pro users' }]),
};
const line = () => screen.getByText(/^Splits total/);
const set = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('the experiment form', () => {
  it('says the splits total 100% for a new experiment, and flags any other total as an error', async () => {
    renderPage(<ExperimentForm editable />, { api });
    expect(line().textContent).toBe('Splits total 100% (they must total 100%).');
    expect(line().className).toBe('hint');
    set('Variant 2 split (%)', '30');
    expect(line().textContent).toBe('Splits total 80% (they must total 100%).');
    expect(line().className).toBe('field-error');
    set('Variant 1 split (%)', '70');
    expect(line().className).toBe('hint');
    await screen.findAllByRole('option', { name: 'Onboarding A' });
  });

  it('adds a variant at 0% (the total unchanged) and offers to remove variants past two', async () => {
    renderPage(<ExperimentForm editable />, { api });
    expect(screen.queryByRole('button', { name: /Remove variant/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add variant' }));
    expect((screen.getByLabelText('Variant 3 name') as HTMLInputElement).value).toBe('Variant C');
    expect((screen.getByLabelText('Variant 3 split (%)') as HTMLInputElement).value).toBe('0');
    expect(line().textContent).toBe('Splits total 100% (they must total 100%).');
    set('Variant 3 split (%)', '20');
    expect(line().className).toBe('field-error');
    fireEvent.click(screen.getByRole('button', { name: 'Remove variant 2' }));
    expect(screen.queryByLabelText('Variant 3 name')).toBeNull();
    expect(line().textContent).toBe('Splits total 70% (they must total 100%).');
    expect(screen.queryByRole('button', { name: /Remove variant/ })).toBeNull();
    await screen.findAllByRole('option', { name: 'Onboarding A' });
  });

  it("creates the experiment with its variants and shows the API's messages under the variant fields", async () => {
    const { calls } = renderPage(<ExperimentForm editable />, {
      api: {
        ...api,
        'POST /api/experiments': () => ({
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_ERROR',
              message: 'Invalid experiment',
              details: [{ path: 'body.variants.1.splitPercentage', message: 'Splits must total 100' }],
            },
          },
        }),
      },
    });
    set('Name', 'Tour A vs B');
    await screen.findAllByRole('option', { name: 'Onboarding B' });
    set('Variant 2 flow', 'f2');
    set('Variant 2 split (%)', '40');
    fireEvent.click(screen.getByRole('button', { name: 'Create experiment' }));
    expect((await screen.findByText('Splits must total 100')).className).toBe('field-error');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({
      name: 'Tour A vs B',
      description: null,
      audienceId: null,
      variants: [
        { name: 'Control', splitPercentage: 50, flowId: null },
        { name: 'Variant B', splitPercentage: 40, flowId: 'f2' },
      ],
    });
    await waitFor(() =>
      expect(screen.getByLabelText('Variant 2 split (%)').getAttribute('aria-invalid')).toBe('true'),
    );
  });

  it('shows a started experiment read-only: no add, no remove, no save', async () => {
    renderPage(<ExperimentForm editable={false} />, { api });
    expect(screen.queryByRole('button', { name: 'Add variant' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Create experiment' })).toBeNull();
    expect(
      (screen.getByLabelText('Variant 1 split (%)') as HTMLInputElement).closest('fieldset')?.disabled,
    ).toBe(true);
    await screen.findAllByRole('option', { name: 'Onboarding A' });
  });
});
