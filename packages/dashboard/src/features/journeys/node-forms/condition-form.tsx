import { asGroup, RuleGroup, type RuleNode } from '../../audiences';
import type { NodeFormProps } from './node-config';

/** CONDITION: the audience rule builder for the node's `ruleTree`. */
export function ConditionForm({ config, onChange }: NodeFormProps) {
  const tree = asGroup(config.ruleTree as RuleNode | undefined);
  return (
    <>
      <p className="hint">
        Users matching these rules follow the <code>true</code> edge, others the <code>false</code> edge.
      </p>
      <RuleGroup
        node={tree}
        path="ruleTree"
        onChange={(ruleTree) => onChange({ config: { ...config, ruleTree } })}
      />
    </>
  );
}
