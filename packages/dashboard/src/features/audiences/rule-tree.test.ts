import { describe, expect, it } from 'vitest';
import {
  addGroup,
  addRule,
  asGroup,
  countRules,
  depthOf,
  parseScalar,
  type RuleNode,
  removeRule,
  replaceRule,
  setCombinator,
  setOperator,
  setValue,
  valueFor,
  valueText,
} from './rule-tree';

const plan: RuleNode = { field: 'traits.plan', operator: 'eq', value: 'pro' };
const country: RuleNode = { field: 'traits.country', operator: 'in', value: ['FR', 'DE'] };

describe('the rule tree', () => {
  it('types what was typed as the operator takes it', () => {
    expect(parseScalar('true')).toBe(true);
    expect(parseScalar(' 42 ')).toBe(42);
    expect(parseScalar('-1.5')).toBe(-1.5);
    expect(parseScalar('007')).toBe('007'); // a leading zero is an id, not a number
    expect(valueFor('eq', 'false')).toBe(false);
    expect(valueFor('in', 'pro, 3, ,enterprise')).toEqual(['pro', 3, 'enterprise']);
    expect(valueFor('gt', '10')).toBe(10);
    expect(valueFor('gt', 'ten')).toBe('ten'); // left for the API to refuse, under the rule
    expect(valueFor('contains', '12')).toBe('12'); // text operators keep text
    expect(valueFor('exists', 'anything')).toBeUndefined();
    expect(valueText(['pro', 3])).toBe('pro, 3');
    expect(valueText(undefined)).toBe('');
  });

  it('edits a group: combinator, add a rule, add a group, replace and remove by position', () => {
    let tree = asGroup(undefined);
    expect(tree).toEqual({ logicalOperator: 'AND', rules: [] });
    tree = addGroup(addRule(tree));
    expect(tree.rules).toEqual([
      { field: 'traits.plan', operator: 'eq', value: '' },
      { logicalOperator: 'OR', rules: [] },
    ]);
    tree = replaceRule(tree, 1, addRule(tree.rules![1]!));
    expect(countRules(tree)).toBe(2);
    tree = removeRule(setCombinator(tree, 'NOT'), 0);
    expect(tree.logicalOperator).toBe('NOT');
    expect(tree.rules).toEqual([
      { logicalOperator: 'OR', rules: [{ field: 'traits.plan', operator: 'eq', value: '' }] },
    ]);
  });

  it('never changes the tree it was given', () => {
    const tree = { logicalOperator: 'AND' as const, rules: [plan] };
    const frozen = JSON.stringify(tree);
    addRule(tree);
    removeRule(tree, 0);
    replaceRule(tree, 0, country);
    setOperator(plan, 'in');
    expect(JSON.stringify(tree)).toBe(frozen);
  });

  it('re-reads the value when the operator changes: a list for "is one of", none for "is set"', () => {
    expect(setOperator(plan, 'in')).toEqual({ field: 'traits.plan', operator: 'in', value: ['pro'] });
    expect(setOperator(country, 'eq').value).toBe('FR, DE');
    expect(setOperator(plan, 'exists').value).toBeUndefined();
    expect(setValue({ field: 'traits.seats', operator: 'gte' }, '5').value).toBe(5);
  });

  it('wraps a lone rule in AND at the root, and counts rules through nested groups', () => {
    expect(asGroup(plan)).toEqual({ logicalOperator: 'AND', rules: [plan] });
    expect(
      countRules({
        logicalOperator: 'OR',
        rules: [plan, { logicalOperator: 'NOT', rules: [country, plan] }],
      }),
    ).toBe(3);
    expect(countRules(null)).toBe(0);
    expect(depthOf('ruleTree')).toBe(0);
    expect(depthOf('ruleTree.rules.1.rules.0')).toBe(2);
  });
});
