import type { Schemas } from '../../app/api';

/**
 * An audience's rule tree and the edits the rule builder makes to it, as pure functions: a group
 * combines its rules with AND, OR or NOT; a rule compares a field with a value by an operator
 * (the value typed as the operator needs it). Every edit returns a new tree.
 */

export type RuleNode = Schemas['RuleTreeInput'];
export type Operator = NonNullable<RuleNode['operator']>;
export type Combinator = NonNullable<RuleNode['logicalOperator']>;
type Value = RuleNode['value'];

export const OPERATORS: readonly { value: Operator; label: string }[] = [
  { value: 'eq', label: 'equals' },
  { value: 'neq', label: 'does not equal' },
  { value: 'gt', label: 'greater than' },
  { value: 'gte', label: 'at least' },
  { value: 'lt', label: 'less than' },
  { value: 'lte', label: 'at most' },
  { value: 'contains', label: 'contains' },
  { value: 'not_contains', label: 'does not contain' },
  { value: 'starts_with', label: 'starts with' },
  { value: 'ends_with', label: 'ends with' },
  { value: 'in', label: 'is one of' },
  { value: 'not_in', label: 'is none of' },
  { value: 'exists', label: 'is set' },
  { value: 'not_exists', label: 'is not set' },
  { value: 'regex', label: 'matches regex' },
];
const NO_VALUE = new Set<Operator>(['exists', 'not_exists']);
const LIST = new Set<Operator>(['in', 'not_in']);
const NUMERIC = new Set<Operator>(['gt', 'gte', 'lt', 'lte']);
const TEXT = new Set<Operator>(['contains', 'not_contains', 'starts_with', 'ends_with', 'regex']);

export const takesValue = (op: Operator) => !NO_VALUE.has(op);
export const takesList = (op: Operator) => LIST.has(op);

/** Groups nest at most this deep below the root (the API's limit is ten levels). */
export const MAX_GROUP_DEPTH = 9;

export const FIELD_SUGGESTIONS = [
  'traits.plan',
  'traits.country',
  'traits.email',
  'traits.createdAt',
  'role',
  'userId',
  'device.type',
  'device.browser',
];

export const isGroup = (n: RuleNode) => Array.isArray(n.rules) || n.logicalOperator !== undefined;

export function countRules(tree: RuleNode | unknown): number {
  const n = tree as RuleNode;
  if (!n || typeof n !== 'object') return 0;
  return isGroup(n) ? (n.rules ?? []).reduce((sum, r) => sum + countRules(r), 0) : 1;
}

/** The tree the builder edits: always a group at the root (a lone leaf is wrapped in AND). */
export function asGroup(tree: RuleNode | undefined): RuleNode {
  if (!tree) return { logicalOperator: 'AND', rules: [] };
  return isGroup(tree)
    ? { logicalOperator: tree.logicalOperator ?? 'AND', rules: tree.rules ?? [] }
    : { logicalOperator: 'AND', rules: [tree] };
}

/** A typed value from what was typed: true/false, numbers (no leading zeros), else the text. */
export function parseScalar(text: string): string | number | boolean {
  const t = text.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(t)) return Number(t);
  return text;
}

/** The value an operator takes from the text typed: none, a list (comma-separated), a number, text. */
export function valueFor(operator: Operator, text: string): Value {
  if (NO_VALUE.has(operator)) return undefined;
  if (LIST.has(operator))
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(parseScalar);
  if (NUMERIC.has(operator))
    return text.trim() === '' ? text : Number.isNaN(Number(text)) ? text : Number(text);
  if (TEXT.has(operator)) return text;
  return parseScalar(text);
}

export function valueText(value: Value): string {
  if (value === undefined || value === null) return '';
  return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

// ---- edits of a group ------------------------------------------------------------------------

const rulesOf = (group: RuleNode) => group.rules ?? [];

export const setCombinator = (group: RuleNode, logicalOperator: Combinator): RuleNode => ({
  ...group,
  logicalOperator,
});
export const replaceRule = (group: RuleNode, i: number, next: RuleNode): RuleNode => ({
  ...group,
  rules: rulesOf(group).map((r, j) => (j === i ? next : r)),
});
export const removeRule = (group: RuleNode, i: number): RuleNode => ({
  ...group,
  rules: rulesOf(group).filter((_, j) => j !== i),
});
/** A new rule at the end: `traits.plan equals ''`, ready to be filled in. */
export const addRule = (group: RuleNode): RuleNode => ({
  ...group,
  rules: [...rulesOf(group), { field: 'traits.plan', operator: 'eq', value: '' }],
});
/** A new, empty OR group at the end. */
export const addGroup = (group: RuleNode): RuleNode => ({
  ...group,
  rules: [...rulesOf(group), { logicalOperator: 'OR', rules: [] }],
});

// ---- edits of a rule -------------------------------------------------------------------------

export const setField = (rule: RuleNode, field: string): RuleNode => ({ ...rule, field });
/** Another operator: the value typed so far is re-read as the new operator takes it. */
export const setOperator = (rule: RuleNode, operator: Operator): RuleNode => ({
  ...rule,
  operator,
  value: valueFor(operator, valueText(rule.value)),
});
export const setValue = (rule: RuleNode, text: string): RuleNode => ({
  ...rule,
  value: valueFor(rule.operator ?? 'eq', text),
});

/** How deep a group's path (`ruleTree.rules.0.rules.2`) is below the root. */
export const depthOf = (path: string) => path.split('.rules').length - 1;
