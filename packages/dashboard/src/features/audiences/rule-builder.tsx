import type { Schemas } from '../../app/api';

export type RuleNode = Schemas['RuleTreeInput'];
type Operator = NonNullable<RuleNode['operator']>;
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

const isGroup = (n: RuleNode) => Array.isArray(n.rules) || n.logicalOperator !== undefined;

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

const FIELD_SUGGESTIONS = [
  'traits.plan',
  'traits.country',
  'traits.email',
  'traits.createdAt',
  'role',
  'userId',
  'device.type',
  'device.browser',
];

/** The rule builder: groups (AND / OR / NOT) of rules (field, operator, value), nested. */
export function RuleGroup({
  node,
  onChange,
  onRemove,
  path,
  disabled,
  errorAt,
}: {
  node: RuleNode;
  onChange(next: RuleNode): void;
  onRemove?: () => void;
  path: string;
  disabled?: boolean;
  errorAt?: (path: string) => string | undefined;
}) {
  const rules = node.rules ?? [];
  const setRule = (i: number, next: RuleNode) =>
    onChange({ ...node, rules: rules.map((r, j) => (j === i ? next : r)) });
  const removeRule = (i: number) => onChange({ ...node, rules: rules.filter((_, j) => j !== i) });
  const depth = path.split('.rules').length - 1;
  // rules have no ids: a rule's path (its position) is its identity
  const keys = rules.map((_, i) => `${path}.rules.${i}`);
  const groupError = errorAt?.(path);
  return (
    <fieldset className="rule-group" disabled={disabled} aria-label={depth === 0 ? 'Rules' : `Group ${path}`}>
      <div className="rule-group-head">
        <label className="small" htmlFor={`${path}-op`}>
          {depth === 0 ? 'Match' : 'Group'}
        </label>
        <select
          id={`${path}-op`}
          aria-label="Combine rules with"
          value={node.logicalOperator ?? 'AND'}
          onChange={(e) => onChange({ ...node, logicalOperator: e.target.value as 'AND' | 'OR' | 'NOT' })}
        >
          <option value="AND">all of (AND)</option>
          <option value="OR">any of (OR)</option>
          <option value="NOT">none of (NOT)</option>
        </select>
        {onRemove ? (
          <button type="button" className="btn btn-ghost" onClick={onRemove}>
            Remove group
          </button>
        ) : null}
      </div>
      {groupError ? (
        <p className="field-error" role="alert">
          {groupError}
        </p>
      ) : null}
      {rules.map((r, i) =>
        isGroup(r) ? (
          <RuleGroup
            key={keys[i]}
            node={r}
            path={`${path}.rules.${i}`}
            onChange={(n) => setRule(i, n)}
            onRemove={() => removeRule(i)}
            disabled={disabled}
            errorAt={errorAt}
          />
        ) : (
          <RuleLeaf
            key={keys[i]}
            node={r}
            n={i + 1}
            path={`${path}.rules.${i}`}
            onChange={(n) => setRule(i, n)}
            onRemove={() => removeRule(i)}
            errorAt={errorAt}
          />
        ),
      )}
      <div className="rule-actions">
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() =>
            onChange({ ...node, rules: [...rules, { field: 'traits.plan', operator: 'eq', value: '' }] })
          }
        >
          Add rule
        </button>
        {depth < 9 ? (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => onChange({ ...node, rules: [...rules, { logicalOperator: 'OR', rules: [] }] })}
          >
            Add group
          </button>
        ) : null}
      </div>
      <datalist id="rule-fields">
        {FIELD_SUGGESTIONS.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
    </fieldset>
  );
}

function RuleLeaf({
  node,
  n,
  path,
  onChange,
  onRemove,
  errorAt,
}: {
  node: RuleNode;
  n: number;
  path: string;
  onChange(next: RuleNode): void;
  onRemove(): void;
  errorAt?: (path: string) => string | undefined;
}) {
  const operator = node.operator ?? 'eq';
  const error = errorAt?.(path);
  return (
    <div>
      <div className="rule">
        <input
          aria-label={`Rule ${n} field`}
          list="rule-fields"
          placeholder="traits.plan"
          value={node.field ?? ''}
          onChange={(e) => onChange({ ...node, field: e.target.value })}
        />
        <select
          aria-label={`Rule ${n} operator`}
          value={operator}
          onChange={(e) => {
            const op = e.target.value as Operator;
            onChange({ ...node, operator: op, value: valueFor(op, valueText(node.value)) });
          }}
        >
          {OPERATORS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {NO_VALUE.has(operator) ? (
          <span className="muted small">no value</span>
        ) : (
          <input
            aria-label={`Rule ${n} value`}
            placeholder={LIST.has(operator) ? 'pro, enterprise' : 'pro'}
            value={valueText(node.value)}
            onChange={(e) => onChange({ ...node, value: valueFor(operator, e.target.value) })}
          />
        )}
        <button type="button" className="icon-btn" aria-label={`Remove rule ${n}`} onClick={onRemove}>
          ×
        </button>
      </div>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
