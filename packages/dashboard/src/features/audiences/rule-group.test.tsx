import { fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { RuleGroup } from './rule-group';
import type { RuleNode } from './rule-tree';

/** The builder as a form holds it: the tree in state, shown as JSON for the assertions. */
function Builder({ initial, errors = {} }: { initial: RuleNode; errors?: Record<string, string> }) {
  const [tree, setTree] = useState(initial);
  return (
    <>
      <RuleGroup node={tree} onChange={setTree} path="ruleTree" errorAt={(p) => errors[p]} />
      <output data-testid="tree">{JSON.stringify(tree)}</output>
    </>
  );
}
const tree = () => JSON.parse(screen.getByTestId('tree').textContent!) as RuleNode;
const type = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('the rule builder', () => {
  it('builds rules: field, operator, a value typed as the operator takes it', () => {
    render(<Builder initial={{ logicalOperator: 'AND', rules: [] }} />);
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    type('Rule 1 field', 'traits.seats');
    type('Rule 1 operator', 'gte');
    type('Rule 1 value', '10');
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    type('Rule 2 operator', 'in');
    type('Rule 2 value', 'pro, enterprise');
    expect(tree()).toEqual({
      logicalOperator: 'AND',
      rules: [
        { field: 'traits.seats', operator: 'gte', value: 10 },
        { field: 'traits.plan', operator: 'in', value: ['pro', 'enterprise'] },
      ],
    });
    expect((screen.getByLabelText('Rule 2 value') as HTMLInputElement).placeholder).toBe('pro, enterprise');
  });

  it('has no value for "is set", and keeps the value typed when the operator changes', () => {
    render(
      <Builder
        initial={{ logicalOperator: 'AND', rules: [{ field: 'traits.plan', operator: 'eq', value: 'pro' }] }}
      />,
    );
    type('Rule 1 operator', 'exists');
    expect(screen.queryByLabelText('Rule 1 value')).toBeNull();
    expect(screen.getByText('no value')).toBeTruthy();
    expect(tree().rules![0]).toEqual({ field: 'traits.plan', operator: 'exists' });
  });

  it('nests groups with their own combinator, and removes a rule or a group', () => {
    render(
      <Builder
        initial={{ logicalOperator: 'AND', rules: [{ field: 'role', operator: 'eq', value: 'admin' }] }}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Add group' }));
    const group = screen.getByRole('group', { name: 'Group ruleTree.rules.1' });
    fireEvent.click(within(group).getByRole('button', { name: 'Add rule' }));
    fireEvent.change(within(group).getByLabelText('Combine rules with'), { target: { value: 'NOT' } });
    fireEvent.change(screen.getAllByLabelText('Combine rules with')[0]!, { target: { value: 'OR' } });
    expect(tree()).toEqual({
      logicalOperator: 'OR',
      rules: [
        { field: 'role', operator: 'eq', value: 'admin' },
        { logicalOperator: 'NOT', rules: [{ field: 'traits.plan', operator: 'eq', value: '' }] },
      ],
    });
    fireEvent.click(screen.getAllByRole('button', { name: 'Remove rule 1' })[0]!);
    expect(tree().rules).toEqual([
      { logicalOperator: 'NOT', rules: [{ field: 'traits.plan', operator: 'eq', value: '' }] },
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Remove group' }));
    expect(tree()).toEqual({ logicalOperator: 'OR', rules: [] });
  });

  it('stops offering groups ten levels down (the API limit)', () => {
    let deep: RuleNode = { logicalOperator: 'AND', rules: [] };
    for (let i = 0; i < 9; i++) deep = { logicalOperator: 'AND', rules: [deep] };
    render(<Builder initial={deep} />);
    // one "Add group" per group but the deepest
    expect(screen.getAllByRole('button', { name: 'Add group' })).toHaveLength(9);
    expect(screen.getAllByRole('button', { name: 'Add rule' })).toHaveLength(10);
  });

  it("shows the API's message under the rule or group it points at", () => {
    render(
      <Builder
        initial={{
          logicalOperator: 'AND',
          rules: [
            { field: '', operator: 'eq', value: 'x' },
            { logicalOperator: 'OR', rules: [] },
          ],
        }}
        errors={{
          'ruleTree.rules.0': 'field: must not be empty',
          'ruleTree.rules.1': 'a group needs a rule',
        }}
      />,
    );
    const alerts = screen.getAllByRole('alert').map((a) => a.textContent);
    expect(alerts).toEqual(['field: must not be empty', 'a group needs a rule']);
    const group = screen.getByRole('group', { name: 'Group ruleTree.rules.1' });
    expect(within(group).getByRole('alert').textContent).toBe('a group needs a rule');
  });
});
