import { RuleLeaf } from './rule-leaf';
import {
  addGroup,
  addRule,
  type Combinator,
  depthOf,
  FIELD_SUGGESTIONS,
  isGroup,
  MAX_GROUP_DEPTH,
  type RuleNode,
  removeRule,
  replaceRule,
  setCombinator,
} from './rule-tree';

type ErrorAt = (path: string) => string | undefined;

/**
 * The rule builder: groups (AND / OR / NOT) of rules (field, operator, value), nested. `path` is
 * the group's place in the request (`ruleTree.rules.0`): the API's messages are shown where they
 * point.
 */
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
  errorAt?: ErrorAt;
}) {
  const rules = node.rules ?? [];
  const depth = depthOf(path);
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
          onChange={(e) => onChange(setCombinator(node, e.target.value as Combinator))}
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
      {rules.map((r, i) => {
        // rules have no ids: a rule's path (its position) is its identity
        const at = `${path}.rules.${i}`;
        const edit = {
          onChange: (next: RuleNode) => onChange(replaceRule(node, i, next)),
          onRemove: () => onChange(removeRule(node, i)),
          errorAt,
        };
        return isGroup(r) ? (
          <RuleGroup key={at} node={r} path={at} disabled={disabled} {...edit} />
        ) : (
          <RuleLeaf key={at} node={r} n={i + 1} path={at} {...edit} />
        );
      })}
      <div className="rule-actions">
        <button type="button" className="btn btn-secondary" onClick={() => onChange(addRule(node))}>
          Add rule
        </button>
        {depth < MAX_GROUP_DEPTH ? (
          <button type="button" className="btn btn-ghost" onClick={() => onChange(addGroup(node))}>
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
