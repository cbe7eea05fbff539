import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, FormError } from '../../kit';
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
        {order.steps.length === 0 ? (
          <p className="muted pad">No steps yet. {canEdit ? 'Add the first one.' : ''}</p>
        ) : (
          <StepList
            steps={order.steps}
            selectedId={current?.id}
            canEdit={canEdit}
            onSelect={setSelected}
            onMove={order.move}
          />
        )}
      </div>
      {current ? (
        <StepForm
          key={current.id}
          flowId={flow.id}
          step={current}
          canEdit={canEdit}
          onChange={onChange}
          onDraft={setDraft}
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
