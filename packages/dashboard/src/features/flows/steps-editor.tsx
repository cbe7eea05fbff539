import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, FormError } from '../../kit';
import { BrokenNotice, brokenInLastHour, stepsNeedingAttention, useTargetHealth } from '../targeting';
import { type Flow, type Step, sortSteps } from './flow-model';
import { StepForm } from './step-form';
import { StepList } from './step-list';
import { StepPreview } from './step-preview';
import { useStepOrder } from './use-step-order';

/** The steps tab: the ordered list, the selected step's form, and its live preview. */
export function StepsEditor({ flow, canEdit, onChange }: { flow: Flow; canEdit: boolean; onChange(): void }) {
  const saved = sortSteps(flow.steps);
  const [selected, setSelected] = useState<string | undefined>(saved[0]?.id);
  const [draft, setDraft] = useState<Step | undefined>();
  const order = useStepOrder(flow, onChange);
  const current = saved.find((s) => s.id === selected) ?? saved[0];
  const health = useTargetHealth({ flowId: flow.id });
  const healthOf = new Map((health.data ?? []).map((h) => [h.stepId, h]));
  const attention = stepsNeedingAttention(health.data ?? []);
  const brokenNow = brokenInLastHour(health.data ?? []);
  const add = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/flows/{id}/steps', {
          params: { path: { id: flow.id } },
          body: { type: 'MODAL', content: { title: `Step ${saved.length + 1}`, body: '' } },
        }),
      ),
    onSuccess: (res) => {
      setSelected(res.data.id);
      onChange();
    },
  });
  return (
    <div className="editor-grid">
      <div className="card steps-card">
        <div className="card-header">
          <h2>Steps</h2>
          {canEdit ? (
            <Button variant="primary" onClick={() => add.mutate()} busy={add.isPending}>
              Add step
            </Button>
          ) : null}
        </div>
        <FormError error={add.error ?? order.error} />
        {brokenNow.length > 0 ? (
          <BrokenNotice
            subject={brokenNow.length === 1 ? 'A step' : `${brokenNow.length} steps`}
            plural={brokenNow.length > 1}
          />
        ) : null}
        {attention.length > 0 ? (
          <section aria-label="Steps that need attention">
            <p className="pad muted">Steps that need attention:</p>
            <ul className="attention-list">
              {attention.map((h) => (
                <li key={h.stepId}>
                  <button type="button" className="link-btn" onClick={() => setSelected(h.stepId!)}>
                    Step {h.order + 1}
                  </button>{' '}
                  <code>{h.targetSelector}</code>:{' '}
                  {h.suggestedSelector ? `healed; suggested ${h.suggestedSelector}` : `${h.missing} missing`}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {order.steps.length === 0 ? (
          <p className="muted pad">No steps yet. {canEdit ? 'Add the first one.' : ''}</p>
        ) : (
          <StepList
            steps={order.steps}
            selectedId={current?.id}
            canEdit={canEdit}
            onSelect={setSelected}
            onMove={order.move}
            healthOf={(id) => healthOf.get(id)}
          />
        )}
      </div>
      {current ? (
        <StepForm
          key={current.id}
          flowId={flow.id}
          step={current}
          canEdit={canEdit}
          onChange={() => {
            onChange();
            void health.refetch();
          }}
          onDraft={setDraft}
          health={healthOf.get(current.id)}
        />
      ) : (
        <div className="card pad muted">Select or add a step.</div>
      )}
      <div className="card preview-card">
        <div className="card-header">
          <h2>Live preview</h2>
        </div>
        <StepPreview flowName={flow.name} step={draft && draft.id === current?.id ? draft : current} />
      </div>
    </div>
  );
}
