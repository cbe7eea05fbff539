import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, must } from '../../app/api';
import { Button, Form, FormFoot, fieldError } from '../../kit';
import {
  PickElement,
  type Picked,
  pickedFingerprint,
  type TargetHealth,
  TargetHealthPanel,
} from '../targeting';
import { type Step, type StepType, stepBody } from './flow-model';
import { StepFields } from './step-fields';

/** One step's form: its fields, save and delete; every edit is reported as a draft for the preview. */
export function StepForm({
  flowId,
  step,
  canEdit,
  onChange,
  onDraft,
  health,
}: {
  flowId: string;
  step: Step;
  canEdit: boolean;
  onChange(): void;
  onDraft(step: Step): void;
  /** The step's target health (issue 40), when it has a target. */
  health?: TargetHealth;
}) {
  const [type, setType] = useState<StepType>(step.type);
  const [targetSelector, setTarget] = useState(step.targetSelector ?? '');
  const [content, setContent] = useState<Record<string, unknown>>(step.content);
  const [settings, setSettings] = useState<Record<string, unknown>>(step.settings);
  // A picked element's fingerprint, saved with the selector it came with (issue 40).
  const [picked, setPicked] = useState<Picked>();
  const body = {
    ...stepBody(type, targetSelector, content, settings),
    ...pickedFingerprint(picked, targetSelector),
  };
  const draftKey = JSON.stringify(body);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the draft is reported when its content changes
  useEffect(() => onDraft({ ...step, ...body }), [draftKey]);
  const path = { params: { path: { id: flowId, stepId: step.id } } };
  const target = { kind: 'flow' as const, flowId, stepId: step.id };
  const save = useMutation({
    mutationFn: () => must(api.PATCH('/api/flows/{id}/steps/{stepId}', { ...path, body })),
    onSuccess: onChange,
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE('/api/flows/{id}/steps/{stepId}', path)),
    onSuccess: onChange,
  });
  return (
    <Form className="card pad step-form" aria-label="Step" onSubmit={() => save.mutate()}>
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Step {step.order + 1}</legend>
        <StepFields
          type={type}
          targetSelector={targetSelector}
          content={content}
          settings={settings}
          onType={setType}
          onTarget={setTarget}
          onContent={setContent}
          onSettings={setSettings}
          errorAt={(p) => fieldError(save.error, p)}
          targetExtra={
            <>
              {health && health.targetSelector === step.targetSelector ? (
                <TargetHealthPanel target={target} health={health} canEdit={canEdit} onApplied={onChange} />
              ) : null}
              {canEdit ? (
                <PickElement
                  target={target}
                  saveLabel="the step"
                  onPicked={(p) => {
                    setTarget(p.selector);
                    setPicked(p);
                  }}
                />
              ) : null}
            </>
          }
        />
      </fieldset>
      <FormFoot
        error={save.error ?? remove.error}
        claimed={['type', 'targetSelector', 'content', 'settings']}
        done={save.isSuccess && 'Step saved.'}
      >
        {canEdit ? (
          <>
            <Button variant="danger" onClick={() => remove.mutate()} busy={remove.isPending}>
              Delete step
            </Button>
            <Button type="submit" variant="primary" busy={save.isPending}>
              Save step
            </Button>
          </>
        ) : null}
      </FormFoot>
    </Form>
  );
}
