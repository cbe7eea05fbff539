import type { ReactNode } from 'react';
import type { NodeType } from '../journey-model';
import { AdvancedJson } from './advanced-json';
import { ConditionForm } from './condition-form';
import { ContentForm } from './content-form';
import type { NodeFormProps } from './node-config';
import { SplitForm } from './split-form';
import { TriggerForm } from './trigger-form';
import { WaitForEventForm, WaitForm } from './wait-forms';

/**
 * The journey canvas's node configuration forms: one per node type, following the server's
 * shapes (`src/engine/journeys/schemas.ts`). Every control is a labelled native input, so the
 * panel works with the keyboard and a screen reader; "Advanced (JSON)" stays as a disclosure
 * for anyone who prefers to paste a configuration.
 */
const FORMS: Record<NodeType, ((p: NodeFormProps) => ReactNode) | null> = {
  TRIGGER: TriggerForm,
  CONTENT: ContentForm,
  WAIT: WaitForm,
  WAIT_FOR_EVENT: WaitForEventForm,
  CONDITION: ConditionForm,
  SPLIT: SplitForm,
  GOAL_CHECK: null,
  EXIT: null,
};

const NOTHING: Partial<Record<NodeType, string>> = {
  GOAL_CHECK:
    "Checks the journey's goal: users who reached it follow the met edge, others the not_met edge. Nothing to set here.",
  EXIT: 'Ends the enrollment. Nothing to set here.',
};

/** The form of one node type, and the configuration as JSON behind a disclosure. */
export function NodeForm(props: NodeFormProps) {
  const Form = FORMS[props.type];
  return (
    <div className="node-form">
      {Form ? <Form {...props} /> : <p className="muted">{NOTHING[props.type]}</p>}
      {Form ? <AdvancedJson config={props.config} onChange={(config) => props.onChange({ config })} /> : null}
    </div>
  );
}
