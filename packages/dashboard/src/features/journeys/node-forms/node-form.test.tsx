import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { Routes } from '../../../test/fake-api';
import { pageOf } from '../../../test/fake-api';
import { renderPage } from '../../../test/render';
import { NODE_TYPES, type NodeType } from '../journey-model';
import type { Config } from './node-config';
import { NodeForm } from './node-form';

/** The config panel as the canvas holds it: the node's config and content id in state, shown as JSON. */
function Panel({
  type,
  config,
  contentId = null,
}: {
  type: NodeType;
  config?: Config;
  contentId?: string | null;
}) {
  const start = config ?? structuredClone(NODE_TYPES.find((t) => t.type === type)!.config);
  const [data, setData] = useState({ config: start, contentId });
  return (
    <>
      <NodeForm
        type={type}
        config={data.config}
        contentId={data.contentId}
        onChange={(p) => setData((d) => ({ ...d, ...p }))}
      />
      <output data-testid="node">{JSON.stringify(data)}</output>
    </>
  );
}
const node = () =>
  JSON.parse(screen.getByTestId('node').textContent!) as { config: Config; contentId: string | null };
const set = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
const panel = (
  type: NodeType,
  props: { config?: Config; contentId?: string | null } = {},
  api: Routes = {},
) => renderPage(<Panel type={type} {...props} />, { api });

describe('the journey node forms', () => {
  it('TRIGGER: a URL match by default; another type brings its own field and defaults', () => {
    panel('TRIGGER');
    set('URL pattern', '/onboarding');
    set('Match type', 'starts_with');
    expect(node().config).toEqual({
      triggerType: 'URL_MATCH',
      triggerConfig: { matchType: 'starts_with', pattern: '/onboarding' },
    });
    set('Trigger type', 'CUSTOM_EVENT');
    expect(screen.queryByLabelText('URL pattern')).toBeNull();
    set('Event name', 'signed_up');
    expect(node().config).toEqual({ triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'signed_up' } });
    set('Trigger type', 'ELEMENT_CLICK');
    set('Element (CSS selector)', '#upgrade');
    expect(node().config).toEqual({ triggerType: 'ELEMENT_CLICK', triggerConfig: { selector: '#upgrade' } });
    set('Trigger type', 'MANUAL');
    expect(screen.getByText(/enrolled through the API/)).toBeTruthy();
  });

  it('WAIT: an amount and a unit, stored as milliseconds; a bad amount is flagged and not stored', () => {
    panel('WAIT');
    expect((screen.getByLabelText('Wait for amount') as HTMLInputElement).value).toBe('1');
    expect((screen.getByLabelText('Wait for unit') as HTMLSelectElement).value).toBe('days');
    set('Wait for unit', 'hours');
    set('Wait for amount', '2');
    expect(node().config).toEqual({ duration: 7_200_000 });
    set('Wait for amount', '0');
    expect(screen.getByRole('alert').textContent).toBe('Enter a positive number');
    expect(screen.getByLabelText('Wait for amount').getAttribute('aria-invalid')).toBe('true');
    expect(node().config).toEqual({ duration: 7_200_000 });
    set('Wait for amount', '400');
    set('Wait for unit', 'days');
    expect(screen.getByRole('alert').textContent).toBe('Between one minute and 365 days');
  });

  it('WAIT FOR EVENT: the event name, and a time-out that can be switched on (3 days) and off', () => {
    panel('WAIT_FOR_EVENT');
    set('Event name', 'paid');
    fireEvent.click(screen.getByRole('checkbox', { name: /Give up after a while/ }));
    expect(node().config).toEqual({ eventName: 'paid', timeout: 3 * 86_400_000 });
    set('Time out after amount', '12');
    set('Time out after unit', 'hours');
    expect(node().config.timeout).toBe(12 * 3_600_000);
    fireEvent.click(screen.getByRole('checkbox', { name: /Give up after a while/ }));
    expect(node().config).toEqual({ eventName: 'paid' });
    fireEvent.click(screen.getByRole('checkbox', { name: /Give up after a while/ }));
    expect(node().config.timeout).toBe(12 * 3_600_000); // the last time-out set comes back
  });

  it('CONDITION: the rule builder edits the ruleTree (a lone rule becomes an AND group)', () => {
    panel('CONDITION');
    set('Rule 1 value', 'enterprise');
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    set('Rule 2 field', 'traits.country');
    expect(node().config.ruleTree).toEqual({
      logicalOperator: 'AND',
      rules: [
        { field: 'traits.plan', operator: 'eq', value: 'enterprise' },
        { field: 'traits.country', operator: 'eq', value: '' },
      ],
    });
  });

  it('SPLIT: branch rows with a running total; a new branch takes the rest; labels must differ', () => {
    panel('SPLIT');
    const total = () => screen.getByText(/^Total/).textContent;
    expect(total()).toBe('Total 100%');
    set('Branch 2 percentage', '30');
    expect(total()).toBe('Total 80% (must be 100% to publish)');
    expect(screen.getByText(/^Total/).className).toBe('field-error');
    expect((screen.getByRole('button', { name: 'Remove branch 1' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Add branch' }));
    expect(node().config.branches).toEqual([
      { label: 'A', percentage: 50 },
      { label: 'B', percentage: 30 },
      { label: 'C', percentage: 20 },
    ]);
    expect(total()).toBe('Total 100%');
    set('Branch 3 label', 'A');
    expect(screen.getByRole('alert').textContent).toBe('Each branch needs its own label.');
    expect(screen.getByLabelText('Branch 3 label').getAttribute('aria-invalid')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Remove branch 3' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('CONTENT: an existing item of the chosen type, picked by name; another type clears the pick', async () => {
    panel(
      'CONTENT',
      {},
      {
        'GET /api/flows': () =>
          pageOf([
            { id: 'f1', name: 'Welcome tour', status: 'PUBLISHED' },
            { id: 'f2', name: 'Old tour', status: 'ARCHIVED' },
            { id: 'f3', name: 'Draft tour', status: 'DRAFT' },
          ]),
        'GET /api/content/surveys': () => pageOf([]),
      },
    );
    const flow = await screen.findByLabelText('Flow');
    await waitFor(() =>
      expect(
        within(flow)
          .getAllByRole('option')
          .map((o) => o.textContent),
      ).toEqual(['Choose one', 'Welcome tour', 'Draft tour (draft)']),
    );
    set('Flow', 'f3');
    expect(node()).toEqual({ config: { contentType: 'flow' }, contentId: 'f3' });
    set('Content type', 'survey');
    expect(node()).toEqual({ config: { contentType: 'survey' }, contentId: null });
    expect(await screen.findByText('No survey yet: create one first.')).toBeTruthy();
  });

  it("CONTENT: an optional priority, a whole number within ±1,000,000 (empty: the item's own)", async () => {
    panel(
      'CONTENT',
      { config: { contentType: 'flow' }, contentId: 'f1' },
      { 'GET /api/flows': () => pageOf([]) },
    );
    set('Priority (optional)', '20');
    expect(node()).toEqual({ config: { contentType: 'flow', priority: 20 }, contentId: 'f1' });
    set('Priority (optional)', '-3');
    expect(node().config).toEqual({ contentType: 'flow', priority: -3 });
    set('Priority (optional)', '2.5');
    expect(screen.getByRole('alert').textContent).toBe('A whole number between -1,000,000 and 1,000,000');
    expect(node().config).toEqual({ contentType: 'flow', priority: -3 });
    set('Priority (optional)', '');
    expect(node().config).toEqual({ contentType: 'flow' });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('the configuration as JSON: an edit that parses applies to the form, one that does not is flagged', () => {
    panel('WAIT');
    const json = screen.getByLabelText('Node configuration (JSON)');
    fireEvent.change(json, { target: { value: '{"duration": 1800000}' } });
    expect(node().config).toEqual({ duration: 1_800_000 });
    expect((screen.getByLabelText('Wait for amount') as HTMLInputElement).value).toBe('30');
    expect((screen.getByLabelText('Wait for unit') as HTMLSelectElement).value).toBe('minutes');
    fireEvent.change(json, { target: { value: '[]' } });
    expect(screen.getByRole('alert').textContent).toBe('An object is expected');
    expect(node().config).toEqual({ duration: 1_800_000 });
  });

  it('GOAL CHECK and EXIT: nothing to set', () => {
    panel('GOAL_CHECK');
    expect(screen.getByText(/Nothing to set here/)).toBeTruthy();
    expect(screen.queryByText('Advanced (JSON)')).toBeNull();
  });
});
