import {
  OPERATORS,
  type Operator,
  type RuleNode,
  setField,
  setOperator,
  setValue,
  takesList,
  takesValue,
  valueText,
} from './rule-tree';

/** One rule: field (with suggestions), operator, value (none for `is set` / `is not set`). */
export function RuleLeaf({
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
          onChange={(e) => onChange(setField(node, e.target.value))}
        />
        <select
          aria-label={`Rule ${n} operator`}
          value={operator}
          onChange={(e) => onChange(setOperator(node, e.target.value as Operator))}
        >
          {OPERATORS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {takesValue(operator) ? (
          <input
            aria-label={`Rule ${n} value`}
            placeholder={takesList(operator) ? 'pro, enterprise' : 'pro'}
            value={valueText(node.value)}
            onChange={(e) => onChange(setValue(node, e.target.value))}
          />
        ) : (
          <span className="muted small">no value</span>
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
