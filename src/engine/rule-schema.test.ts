import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RULE_DEPTH, MAX_RULE_NODES, ruleTreeSchema } from './rule-schema.js';
import { OPERATORS, type RuleNode } from './rules.js';

const issuesOf = (input: unknown) => {
  const result = ruleTreeSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};
const pathsOf = (input: unknown) => issuesOf(input).map((i) => i.path);

function nested(levels: number): unknown {
  let node: unknown = { field: 'role', operator: 'exists' };
  for (let i = 1; i < levels; i++) node = { rules: [node] };
  return node;
}

describe('ruleTreeSchema', () => {
  it('accepts leaves and nested groups and keeps their shape', () => {
    const tree = {
      logicalOperator: 'OR',
      rules: [
        { field: 'traits.plan', operator: 'in', value: ['pro', 'team'] },
        { rules: [{ field: 'device.type', operator: 'eq', value: 'mobile' }] },
        { logicalOperator: 'NOT', rules: [{ field: 'userId', operator: 'exists' }] },
      ],
    };
    const node: RuleNode = ruleTreeSchema.parse(tree);
    expect(node).toEqual(tree);
    expect(ruleTreeSchema.parse({ field: 'role', operator: 'eq', value: 'admin' })).toEqual({
      field: 'role',
      operator: 'eq',
      value: 'admin',
    });
  });

  it('accepts every operator with a suitable value', () => {
    const values: Record<string, unknown> = { in: ['a'], not_in: [1], regex: '^a', gt: 1, lte: '2024-01-01' };
    for (const operator of OPERATORS) {
      const value = operator in values ? values[operator] : operator.endsWith('exists') ? undefined : 'x';
      expect(issuesOf({ field: 'traits.a.b', operator, value })).toEqual([]);
    }
  });

  it('reports an unknown operator at the bad node', () => {
    const tree = {
      rules: [
        { field: 'role', operator: 'eq', value: 'admin' },
        { field: 'role', operator: 'like', value: 'adm%' },
      ],
    };
    expect(pathsOf(tree)).toEqual(['rules.1.operator']);
    const deeper = { rules: [{ logicalOperator: 'OR', rules: [{ field: 'role', operator: 'nope' }] }] };
    expect(pathsOf(deeper)).toEqual(['rules.0.rules.0.operator']);
  });

  it('requires field and operator on leaves and rules on groups', () => {
    expect(pathsOf({ rules: [{ operator: 'eq', value: 1 }] })).toEqual(['rules.0.field']);
    expect(pathsOf({ rules: [{ field: 'role', value: 1 }] })).toEqual(['rules.0.operator']);
    expect(pathsOf({ logicalOperator: 'AND' })).toEqual(['rules']);
    expect(pathsOf({ logicalOperator: 'XOR', rules: [] })).toEqual(['logicalOperator']);
    expect(pathsOf({ rules: [], field: 'role', operator: 'exists' })).toEqual(['']);
    expect(pathsOf('role = admin')).toEqual(['']);
  });

  it('validates field paths', () => {
    for (const field of ['userId', 'role', 'traits.plan', 'traits.a.b', 'device.type', 'traits.plan-tier']) {
      expect(issuesOf({ field, operator: 'exists' })).toEqual([]);
    }
    for (const field of [
      '',
      'traits..a',
      '.traits',
      'traits.',
      'traits a',
      'traits.__proto__',
      'x'.repeat(201),
    ]) {
      expect(pathsOf({ field, operator: 'exists' })).toContain('field');
    }
  });

  it('checks the value type for each operator', () => {
    expect(issuesOf({ field: 'role', operator: 'in', value: 'admin' })).toEqual([
      { path: 'value', message: 'value must be an array for operator in' },
    ]);
    expect(pathsOf({ field: 'role', operator: 'not_in' })).toEqual(['value']);
    expect(pathsOf({ field: 'role', operator: 'regex', value: 5 })).toEqual(['value']);
    expect(pathsOf({ field: 'traits.n', operator: 'gt', value: true })).toEqual(['value']);
    expect(pathsOf({ field: 'traits.n', operator: 'gt', value: [1] })).toEqual(['value']);
    expect(pathsOf({ field: 'role', operator: 'eq' })).toEqual(['value']);
    expect(pathsOf({ field: 'role', operator: 'eq', value: { a: 1 } })).toEqual(['value']);
    expect(issuesOf({ field: 'role', operator: 'eq', value: ['a', 1, true, null] })).toEqual([]);
    expect(issuesOf({ field: 'role', operator: 'exists', value: 'ignored' })).toEqual([]);
  });

  it('refuses regex patterns that could backtrack catastrophically', () => {
    const issues = issuesOf({ rules: [{ field: 'traits.s', operator: 'regex', value: '(a+)+$' }] });
    expect(issues).toEqual([
      { path: 'rules.0.value', message: 'regex pattern could backtrack catastrophically' },
    ]);
    expect(pathsOf({ field: 'traits.s', operator: 'regex', value: '(x+x+)+y' })).toEqual(['value']);
  });

  it('refuses regex patterns RE2 cannot compile and overly long ones', () => {
    expect(pathsOf({ field: 'traits.s', operator: 'regex', value: '(?=a)b' })).toEqual(['value']);
    expect(pathsOf({ field: 'traits.s', operator: 'regex', value: '(' })).toEqual(['value']);
    expect(pathsOf({ field: 'traits.s', operator: 'regex', value: 'a'.repeat(501) })).toEqual(['value']);
    expect(pathsOf({ field: 'traits.s', operator: 'regex', value: 'a'.repeat(500) })).toEqual([]);
  });

  it(`bounds depth to ${MAX_RULE_DEPTH} levels`, () => {
    expect(issuesOf(nested(MAX_RULE_DEPTH))).toEqual([]);
    const issues = issuesOf(nested(MAX_RULE_DEPTH + 1));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toBe(`a rule tree may be at most ${MAX_RULE_DEPTH} levels deep`);
    expect(issues[0]?.path).toBe(Array(MAX_RULE_DEPTH).fill('rules.0').join('.'));
  });

  it('rejects absurdly deep input without exhausting the stack', () => {
    expect(issuesOf(nested(100_000))).toHaveLength(1);
  });

  it(`bounds size to ${MAX_RULE_NODES} nodes`, () => {
    const leaves = (n: number) => Array.from({ length: n }, () => ({ field: 'role', operator: 'exists' }));
    expect(issuesOf({ rules: leaves(MAX_RULE_NODES - 1) })).toEqual([]);
    expect(issuesOf({ rules: leaves(MAX_RULE_NODES) })).toEqual([
      { path: '', message: `a rule tree may have at most ${MAX_RULE_NODES} nodes` },
    ]);
    expect(issuesOf({ rules: leaves(1_000_000) })).toHaveLength(1);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(typeof ruleTreeSchema.safeParse(input).success).toBe('boolean');
      }),
    );
  });
});
