import { createEvent, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderPage } from '../../test/render';
import { type Flow, orderedSteps, type Step, sortSteps } from './flow-model';
import { StepList } from './step-list';
import { StepsEditor } from './steps-editor';

// the live preview (an iframe of the SDK) is not what these tests are about
vi.mock('./step-preview', () => ({ StepPreview: () => null }));

const FLOW_ID = '00000000-0000-4000-8000-00000000f001';
const step = (id: string, order: number, title: string): Step => ({
  id,
  flowId: FLOW_ID,
  tenantId: '00000000-0000-4000-8000-0000000000c1',
  type: 'MODAL',
  order,
  targetSelector: null,
  targetFingerprint: null,
  content: { title },
  settings: {},
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
});
// saved order: Welcome, Profile, Invite (the API may list them in any order)
const STEPS = [
  step('s-invite', 2, 'Invite'),
  step('s-welcome', 0, 'Welcome'),
  step('s-profile', 1, 'Profile'),
];
const flow = { id: FLOW_ID, name: 'Onboarding', steps: STEPS } as unknown as Flow;

const titles = () =>
  screen.getAllByRole('listitem').map((li) => li.querySelector('.step-title')?.textContent);

/** A drag of one step onto another's place, as the browser fires it (the dragged id in the data transfer). */
function drag(from: HTMLElement, to: HTMLElement) {
  const data = new Map<string, string>();
  const dataTransfer = {
    setData: (k: string, v: string) => data.set(k, v),
    getData: (k: string) => data.get(k) ?? '',
    effectAllowed: 'none',
  };
  fireEvent(from, Object.assign(createEvent.dragStart(from), { dataTransfer }));
  const over = createEvent.dragOver(to);
  fireEvent(to, Object.assign(over, { dataTransfer }));
  fireEvent(to, Object.assign(createEvent.drop(to), { dataTransfer }));
  return { overAllowed: over.defaultPrevented };
}

describe('step order (pure)', () => {
  it('sorts the saved steps by their order', () => {
    expect(sortSteps(STEPS).map((s) => s.id)).toEqual(['s-welcome', 's-profile', 's-invite']);
  });

  it('shows the steps in the order the editor holds, skipping ids of deleted steps', () => {
    expect(orderedSteps(STEPS, ['s-invite', 'gone', 's-welcome']).map((s) => s.id)).toEqual([
      's-invite',
      's-welcome',
    ]);
  });
});

describe('the step list', () => {
  const list = (onMove = vi.fn(), canEdit = true) => {
    renderPage(
      <StepList
        steps={sortSteps(STEPS)}
        selectedId="s-welcome"
        canEdit={canEdit}
        onSelect={vi.fn()}
        onMove={onMove}
      />,
    );
    return onMove;
  };

  it('moves a step with its ↑ / ↓ buttons (the first cannot go up, the last cannot go down)', async () => {
    const onMove = list();
    expect((screen.getByRole('button', { name: 'Move step 1 up' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Move step 3 down' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Move step 1 down' }));
    fireEvent.click(screen.getByRole('button', { name: 'Move step 3 up' }));
    expect(onMove.mock.calls).toEqual([
      [0, 1],
      [2, 1],
    ]);
  });

  it('moves a step dropped on another one to that place', () => {
    const onMove = list();
    const [first, , third] = screen.getAllByRole('listitem');
    const { overAllowed } = drag(third!, first!);
    expect(overAllowed).toBe(true);
    expect(onMove).toHaveBeenCalledWith(2, 0);
  });

  it('gives a viewer nothing to move: no buttons, nothing draggable', () => {
    list(vi.fn(), false);
    expect(screen.queryByRole('button', { name: /Move step/ })).toBeNull();
    expect(screen.getAllByRole('listitem').every((li) => li.getAttribute('draggable') === 'false')).toBe(
      true,
    );
  });
});

describe('reordering in the steps editor', () => {
  const reorderRoute = (answer: unknown) => ({
    'POST /api/flows/:id/steps/reorder': () => answer,
    'GET /api/flows/:id/target-health': () => ({ data: [] }),
  });

  it('shows the new order at once and saves every step id in it', async () => {
    const onChange = vi.fn();
    const { calls } = renderPage(<StepsEditor flow={flow} canEdit onChange={onChange} />, {
      api: reorderRoute({ data: {} }),
    });
    expect(titles()).toEqual(['Welcome', 'Profile', 'Invite']);
    fireEvent.click(screen.getByRole('button', { name: 'Move step 1 down' }));
    expect(titles()).toEqual(['Profile', 'Welcome', 'Invite']);
    await waitFor(() => expect(onChange).toHaveBeenCalled());
    const reorder = calls.filter((c) => c.path.endsWith('/steps/reorder'));
    expect(reorder).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: `/api/flows/${FLOW_ID}/steps/reorder`,
        body: { stepIds: ['s-profile', 's-welcome', 's-invite'] },
      }),
    ]);
  });

  it('puts the saved order back, and says why, when the API refuses the new one', async () => {
    const onChange = vi.fn();
    renderPage(<StepsEditor flow={flow} canEdit onChange={onChange} />, {
      api: reorderRoute({
        status: 409,
        body: { error: { code: 'CONFLICT', message: 'The flow changed meanwhile' } },
      }),
    });
    const [, , third] = screen.getAllByRole('listitem');
    drag(third!, screen.getAllByRole('listitem')[0]!);
    expect(titles()).toEqual(['Invite', 'Welcome', 'Profile']);
    const alert = await screen.findByText('The flow changed meanwhile');
    expect(alert).toBeTruthy();
    await waitFor(() => expect(titles()).toEqual(['Welcome', 'Profile', 'Invite']));
    expect(onChange).not.toHaveBeenCalled();
  });

  it('selects a step to edit it', async () => {
    renderPage(<StepsEditor flow={flow} canEdit onChange={vi.fn()} />, {
      api: { 'GET /api/flows/:id/target-health': () => ({ data: [] }) },
    });
    const profile = within(screen.getAllByRole('listitem')[1]!).getByRole('button', { name: /Profile/ });
    fireEvent.click(profile);
    expect(profile.getAttribute('aria-current')).toBe('true');
    expect((screen.getByRole('textbox', { name: 'Title' }) as HTMLInputElement).value).toBe('Profile');
  });
});
