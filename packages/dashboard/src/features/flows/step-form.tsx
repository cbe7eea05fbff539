import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, must } from '../../app/api';
import { Button, Form, FormFoot, fieldError } from '../../kit';
import { type Step, type StepType, stepBody } from './flow-model';
import { StepFields } from './step-fields';

/** One step's form: its fields, save and delete; every edit is reported as a draft for the preview. */
export function StepForm({
  flowId,
  step,
  canEdit,
  onChange,
  onDraft,
}: {
  flowId: string;
  step: Step;
  canEdit: boolean;
  onChange(): void;
  onDraft(step: Step): void;
}) {
  const [type, setType] = useState<StepType>(step.type);
  const [targetSelector, setTarget] = useState(step.targetSelector ?? '');
  const [content, setContent] = useState<Record<string, unknown>>(step.content);
  const [settings, setSettings] = useState<Record<string, unknown>>(step.settings);
  const body = stepBody(type, targetSelector, content, settings);
  const draftKey = JSON.stringify(body);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the draft is reported when its content changes
  useEffect(() => onDraft({ ...step, ...body }), [draftKey]);
  const path = { params: { path: { id: flowId, stepId: step.id } } };
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
