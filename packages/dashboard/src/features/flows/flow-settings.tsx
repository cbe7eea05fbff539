import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import {
  Button,
  Form,
  FormFoot,
  fieldError,
  fromLocalInput,
  humanize,
  SelectField,
  TextArea,
  TextField,
  toLocalInput,
} from '../../kit';
import { AudiencePicker } from '../audiences';
import { type Flow, MATCH_TYPES, TEMPLATES, type TriggerChoice, triggerBody } from './flow-model';

type Fields = ReturnType<typeof formOf>;

/** The targeting tab's state from a flow. */
const formOf = (flow: Flow) => ({
  name: flow.name,
  description: flow.description ?? '',
  template: flow.template,
  audienceId: flow.audienceId ?? '',
  triggerType: (flow.trigger?.type ?? 'NONE') as TriggerChoice,
  matchType: String(flow.trigger?.config?.matchType ?? 'contains'),
  pattern: String(flow.trigger?.config?.pattern ?? ''),
  scheduledAt: toLocalInput(flow.scheduledAt),
  expiresAt: toLocalInput(flow.expiresAt),
});

/** The targeting tab: details, audience and trigger, schedule. */
export function FlowSettings({ flow, canEdit, onSaved }: { flow: Flow; canEdit: boolean; onSaved(): void }) {
  const [form, setForm] = useState(() => formOf(flow));
  const set = <K extends keyof Fields>(key: K, value: Fields[K]) => setForm((f) => ({ ...f, [key]: value }));
  const save = useMutation({
    mutationFn: () =>
      must(
        api.PATCH('/api/flows/{id}', {
          params: { path: { id: flow.id } },
          body: {
            name: form.name,
            description: form.description || null,
            template: form.template,
            audienceId: form.audienceId || null,
            trigger: triggerBody(form.triggerType, form.matchType, form.pattern),
            scheduledAt: fromLocalInput(form.scheduledAt),
            expiresAt: fromLocalInput(form.expiresAt),
          },
        }),
      ),
    onSuccess: onSaved,
  });
  const err = (p: string) => fieldError(save.error, p);
  return (
    <Form className="card pad settings-form" onSubmit={() => save.mutate()}>
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Details</legend>
        <div className="row">
          <TextField
            label="Name"
            value={form.name}
            onChange={(e) => set('name', e.target.value)}
            error={err('name')}
          />
          <SelectField
            label="Template"
            value={form.template}
            onChange={(e) => set('template', e.target.value as Fields['template'])}
            options={TEMPLATES.map((t) => ({ value: t, label: humanize(t) }))}
            error={err('template')}
          />
        </div>
        <TextArea
          label="Description"
          rows={2}
          value={form.description}
          onChange={(e) => set('description', e.target.value)}
          error={err('description')}
        />
      </fieldset>
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Targeting</legend>
        <AudiencePicker
          value={form.audienceId}
          onChange={(v) => set('audienceId', v)}
          error={err('audienceId')}
        />
        <div className="row">
          <SelectField
            label="Trigger"
            value={form.triggerType}
            onChange={(e) => set('triggerType', e.target.value as TriggerChoice)}
            options={[
              { value: 'URL_MATCH', label: 'When the page URL matches' },
              { value: 'MANUAL', label: 'Manually (Guidance.startFlow)' },
              { value: 'NONE', label: 'On every page' },
            ]}
            error={err('trigger.type')}
          />
          {form.triggerType === 'URL_MATCH' ? (
            <>
              <SelectField
                label="Match"
                value={form.matchType}
                onChange={(e) => set('matchType', e.target.value)}
                options={MATCH_TYPES.map((m) => ({ value: m, label: m.replace('_', ' ') }))}
                error={err('trigger.config.matchType')}
              />
              <TextField
                label="URL pattern"
                placeholder="/dashboard"
                value={form.pattern}
                onChange={(e) => set('pattern', e.target.value)}
                error={err('trigger.config.pattern') ?? err('trigger')}
              />
            </>
          ) : null}
        </div>
      </fieldset>
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Schedule</legend>
        <div className="row">
          <TextField
            label="Start showing at"
            type="datetime-local"
            value={form.scheduledAt}
            onChange={(e) => set('scheduledAt', e.target.value)}
            error={err('scheduledAt')}
            hint="Publishing before this time schedules the flow."
          />
          <TextField
            label="Stop showing at"
            type="datetime-local"
            value={form.expiresAt}
            onChange={(e) => set('expiresAt', e.target.value)}
            error={err('expiresAt')}
          />
        </div>
      </fieldset>
      <FormFoot
        error={save.error}
        claimed={['name', 'description', 'template', 'audienceId', 'trigger', 'scheduledAt', 'expiresAt']}
        done={save.isSuccess && 'Flow saved.'}
      >
        {canEdit ? (
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save
          </Button>
        ) : null}
      </FormFoot>
    </Form>
  );
}
