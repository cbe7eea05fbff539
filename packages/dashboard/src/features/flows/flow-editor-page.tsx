import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, must, type Schemas } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  FormError,
  fieldError,
  Loading,
  Notice,
  Page,
  SelectField,
  StatusBadge,
  Tabs,
  TextArea,
  TextField,
} from '../../kit/ui';
import { AudiencePicker, fromLocalInput, toLocalInput } from '../audiences/audience-picker';
import { label, TEMPLATES } from './flows-page';
import { StepPreview } from './step-preview';

type Flow = Schemas['Flow'];
type Step = Schemas['FlowStep'];
type StepType = Step['type'];

export const STEP_TYPES: readonly StepType[] = [
  'TOOLTIP',
  'MODAL',
  'BEACON',
  'BANNER',
  'SLIDEOUT',
  'VIDEO',
  'FORM',
  'CLICK',
  'NAVIGATE',
  'WAIT',
  'INPUT',
  'SCROLL',
];
const TARGETED = new Set<StepType>(['TOOLTIP', 'BEACON', 'CLICK', 'INPUT', 'SCROLL', 'WAIT']);
const MATCH_TYPES = ['contains', 'equals', 'starts_with', 'ends_with', 'regex', 'glob'] as const;

const str = (o: Record<string, unknown>, k: string) => (typeof o[k] === 'string' ? (o[k] as string) : '');

/** The flow editor: steps (drag to reorder), each step's form with a live SDK preview, targeting, trigger, schedule, lifecycle. */
export default function FlowEditor() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const [tab, setTab] = useState<'steps' | 'targeting'>('steps');
  const flow = useQuery({
    queryKey: ['flow', id],
    queryFn: async () => (await must(api.GET('/api/flows/{id}', { params: { path: { id } } }))).data,
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['flow', id] });
    void client.invalidateQueries({ queryKey: ['flows'] });
  };
  const transition = useMutation({
    mutationFn: async (action: 'publish' | 'archive' | 'restore') => {
      const path = { params: { path: { id } } };
      if (action === 'publish') return must(api.POST('/api/flows/{id}/publish', path));
      if (action === 'archive') return must(api.POST('/api/flows/{id}/archive', path));
      return must(api.POST('/api/flows/{id}/restore', path));
    },
    onSuccess: refresh,
  });
  if (flow.isPending) return <Loading />;
  if (flow.isError) return <FormError error={flow.error} />;
  const f = flow.data;
  return (
    <Page
      title={
        <>
          <Link to="/flows" className="crumb">
            Flows
          </Link>{' '}
          / {f.name} <StatusBadge status={f.status} />
        </>
      }
      actions={
        canEdit ? (
          <>
            {f.status === 'ARCHIVED' ? (
              <Button onClick={() => transition.mutate('restore')} busy={transition.isPending}>
                Restore
              </Button>
            ) : (
              <Button
                variant="danger"
                onClick={() => transition.mutate('archive')}
                busy={transition.isPending}
              >
                Archive
              </Button>
            )}
            {f.status !== 'PUBLISHED' && f.status !== 'ARCHIVED' ? (
              <Button
                variant="primary"
                onClick={() => transition.mutate('publish')}
                busy={transition.isPending}
              >
                Publish
              </Button>
            ) : null}
          </>
        ) : null
      }
    >
      {transition.isSuccess ? (
        <Notice kind="success">
          Flow{' '}
          {transition.variables === 'publish'
            ? 'published'
            : transition.variables === 'archive'
              ? 'archived'
              : 'restored'}
          .
        </Notice>
      ) : null}
      <FormError error={transition.error} />
      {!canEdit ? <Notice>You have view-only access: ask an editor or admin to make changes.</Notice> : null}
      <Tabs<'steps' | 'targeting'>
        label="Flow sections"
        tabs={[
          { value: 'steps', label: `Steps (${f.steps.length})` },
          { value: 'targeting', label: 'Targeting & schedule' },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === 'steps' ? (
        <StepsEditor flow={f} canEdit={canEdit} onChange={refresh} />
      ) : (
        <FlowSettings flow={f} canEdit={canEdit} onSaved={refresh} />
      )}
    </Page>
  );
}

function StepsEditor({ flow, canEdit, onChange }: { flow: Flow; canEdit: boolean; onChange(): void }) {
  const steps = [...flow.steps].sort((a, b) => a.order - b.order);
  const [selected, setSelected] = useState<string | undefined>(steps[0]?.id);
  const [order, setOrder] = useState(steps.map((s) => s.id));
  const [dragging, setDragging] = useState<string>();
  const [draft, setDraft] = useState<Step | undefined>();
  useEffect(() => setOrder([...flow.steps].sort((a, b) => a.order - b.order).map((s) => s.id)), [flow.steps]);
  const current = steps.find((s) => s.id === selected) ?? steps[0];
  const byId = new Map(steps.map((s) => [s.id, s]));
  const pathOf = { params: { path: { id: flow.id } } };
  const add = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/flows/{id}/steps', {
          ...pathOf,
          body: { type: 'MODAL', content: { title: `Step ${steps.length + 1}`, body: '' } },
        }),
      ),
    onSuccess: (res) => {
      setSelected(res.data.id);
      onChange();
    },
  });
  const reorder = useMutation({
    mutationFn: (stepIds: string[]) =>
      must(api.POST('/api/flows/{id}/steps/reorder', { ...pathOf, body: { stepIds } })),
    onSuccess: onChange,
    onError: () => setOrder(steps.map((s) => s.id)),
  });
  const move = (from: number, to: number) => {
    if (to < 0 || to >= order.length || from === to) return;
    const next = [...order];
    const [id] = next.splice(from, 1);
    next.splice(to, 0, id!);
    setOrder(next);
    reorder.mutate(next);
  };
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
        <FormError error={add.error ?? reorder.error} />
        {order.length === 0 ? (
          <p className="muted pad">No steps yet. {canEdit ? 'Add the first one.' : ''}</p>
        ) : (
          <ol className="step-list" aria-label="Steps (drag to reorder)">
            {order.map((sid, i) => {
              const s = byId.get(sid);
              if (!s) return null;
              const title = str(s.content, 'title') || label(s.type);
              return (
                <li
                  key={sid}
                  className={`step-item${sid === current?.id ? ' selected' : ''}${dragging === sid ? ' dragging' : ''}`}
                  draggable={canEdit}
                  onDragStart={(e) => {
                    setDragging(sid);
                    e.dataTransfer.effectAllowed = 'move';
                    e.dataTransfer.setData('text/plain', sid);
                  }}
                  onDragEnd={() => setDragging(undefined)}
                  onDragOver={(e) => {
                    if (dragging) e.preventDefault();
                  }}
                  onDrop={(e) => {
                    e.preventDefault();
                    const from = order.indexOf(e.dataTransfer.getData('text/plain'));
                    setDragging(undefined);
                    if (from >= 0) move(from, i);
                  }}
                  data-step-id={sid}
                >
                  {canEdit ? (
                    <span className="drag-handle" aria-hidden="true">
                      ⋮⋮
                    </span>
                  ) : null}
                  <button
                    type="button"
                    className="step-select"
                    aria-current={sid === current?.id ? 'true' : undefined}
                    onClick={() => setSelected(sid)}
                  >
                    <span className="step-num">{i + 1}</span>
                    <span className="step-title">{title}</span>
                    <span className="step-type">{label(s.type)}</span>
                  </button>
                  {canEdit ? (
                    <span className="step-moves">
                      <button
                        type="button"
                        className="icon-btn"
                        aria-label={`Move step ${i + 1} up`}
                        disabled={i === 0}
                        onClick={() => move(i, i - 1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="icon-btn"
                        aria-label={`Move step ${i + 1} down`}
                        disabled={i === order.length - 1}
                        onClick={() => move(i, i + 1)}
                      >
                        ↓
                      </button>
                    </span>
                  ) : null}
                </li>
              );
            })}
          </ol>
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

function StepForm({
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
  const set = (k: string) => (e: { target: { value: string } }) => {
    const value = e.target.value;
    setContent((c) => ({ ...c, [k]: value }));
  };
  const body = {
    type,
    targetSelector: TARGETED.has(type) ? targetSelector || null : null,
    content: cleanContent(type, content),
    settings,
  };
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
  const err = (p: string) => fieldError(save.error, p);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const formQuestions = Array.isArray(content.fields)
    ? (content.fields as { question?: string }[]).map((q) => q.question ?? '').join('\n')
    : '';
  return (
    <form className="card pad step-form" onSubmit={onSubmit} noValidate aria-label="Step">
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Step {step.order + 1}</legend>
        <SelectField
          label="Step type"
          value={type}
          onChange={(e) => setType(e.target.value as StepType)}
          options={STEP_TYPES.map((t) => ({ value: t, label: label(t) }))}
          error={err('type')}
        />
        {TARGETED.has(type) ? (
          <TextField
            label="Target element (CSS selector)"
            placeholder="#save-button"
            value={targetSelector}
            onChange={(e) => setTarget(e.target.value)}
            error={err('targetSelector')}
            hint={
              type === 'WAIT'
                ? 'Optional: wait until this element appears.'
                : 'The element the step points at.'
            }
          />
        ) : null}
        <TextField
          label="Title"
          value={str(content, 'title')}
          onChange={set('title')}
          error={err('content.title')}
        />
        <TextArea
          label="Body"
          rows={3}
          value={str(content, 'body')}
          onChange={set('body')}
          error={err('content.body')}
        />
        {type === 'VIDEO' ? (
          <TextField
            label="Video URL"
            placeholder="https://www.youtube.com/watch?v=…"
            value={str(content, 'videoUrl')}
            onChange={set('videoUrl')}
            error={err('content.videoUrl')}
          />
        ) : null}
        {type === 'NAVIGATE' ? (
          <TextField
            label="Go to URL"
            placeholder="https://app.example.com/settings"
            value={str(content, 'url')}
            onChange={set('url')}
            error={err('content.url')}
          />
        ) : null}
        {type === 'WAIT' ? (
          <TextField
            label="Wait (milliseconds)"
            type="number"
            min={0}
            max={60000}
            value={String(settings.duration ?? '')}
            onChange={(e) => {
              const v = e.target.value;
              setSettings((x) => ({ ...x, duration: v === '' ? undefined : Number(v) }));
            }}
            error={err('settings.duration')}
          />
        ) : null}
        {type === 'FORM' ? (
          <TextArea
            label="Form questions (one per line)"
            rows={3}
            value={formQuestions}
            onChange={(e) => {
              const text = e.target.value;
              setContent((c) => ({
                ...c,
                fields: text
                  .split('\n')
                  .filter((q) => q.trim())
                  .map((question, order) => ({
                    key: `q${order + 1}`,
                    type: 'TEXT',
                    question,
                    required: false,
                    options: {},
                    order,
                  })),
              }));
            }}
          />
        ) : null}
        {type !== 'WAIT' && type !== 'NAVIGATE' && type !== 'SCROLL' ? (
          <div className="row">
            <TextField
              label="Image URL"
              value={str(content, 'imageUrl')}
              onChange={set('imageUrl')}
              error={err('content.imageUrl')}
            />
            <TextField
              label="Next button label"
              placeholder="Next"
              value={str(content, 'nextLabel')}
              onChange={set('nextLabel')}
            />
          </div>
        ) : null}
      </fieldset>
      <FormError
        error={save.error ?? remove.error}
        claimed={['type', 'targetSelector', 'content', 'settings']}
      />
      {save.isSuccess ? <Notice kind="success">Step saved.</Notice> : null}
      {canEdit ? (
        <div className="form-actions">
          <Button variant="danger" onClick={() => remove.mutate()} busy={remove.isPending}>
            Delete step
          </Button>
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save step
          </Button>
        </div>
      ) : null}
    </form>
  );
}

/** Drops empty strings, so an untouched optional field is absent rather than "". */
function cleanContent(_type: StepType, content: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(content).filter(([, v]) => v !== '' && v !== undefined));
}

function FlowSettings({ flow, canEdit, onSaved }: { flow: Flow; canEdit: boolean; onSaved(): void }) {
  const [name, setName] = useState(flow.name);
  const [description, setDescription] = useState(flow.description ?? '');
  const [template, setTemplate] = useState(flow.template);
  const [audienceId, setAudienceId] = useState(flow.audienceId ?? '');
  const [triggerType, setTriggerType] = useState<'URL_MATCH' | 'MANUAL' | 'NONE'>(
    flow.trigger?.type ?? 'NONE',
  );
  const [matchType, setMatchType] = useState(String(flow.trigger?.config?.matchType ?? 'contains'));
  const [pattern, setPattern] = useState(String(flow.trigger?.config?.pattern ?? ''));
  const [scheduledAt, setScheduledAt] = useState(toLocalInput(flow.scheduledAt));
  const [expiresAt, setExpiresAt] = useState(toLocalInput(flow.expiresAt));
  const save = useMutation({
    mutationFn: () =>
      must(
        api.PATCH('/api/flows/{id}', {
          params: { path: { id: flow.id } },
          body: {
            name,
            description: description || null,
            template,
            audienceId: audienceId || null,
            trigger:
              triggerType === 'NONE'
                ? null
                : triggerType === 'MANUAL'
                  ? { type: 'MANUAL', config: {} }
                  : {
                      type: 'URL_MATCH',
                      config: { matchType: matchType as (typeof MATCH_TYPES)[number], pattern },
                    },
            scheduledAt: fromLocalInput(scheduledAt),
            expiresAt: fromLocalInput(expiresAt),
          },
        }),
      ),
    onSuccess: onSaved,
  });
  const err = (p: string) => fieldError(save.error, p);
  return (
    <form
      className="card pad settings-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Details</legend>
        <div className="row">
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={err('name')}
          />
          <SelectField
            label="Template"
            value={template}
            onChange={(e) => setTemplate(e.target.value as typeof template)}
            options={TEMPLATES.map((t) => ({ value: t, label: label(t) }))}
            error={err('template')}
          />
        </div>
        <TextArea
          label="Description"
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={err('description')}
        />
      </fieldset>
      <fieldset disabled={!canEdit}>
        <legend className="card-title">Targeting</legend>
        <AudiencePicker value={audienceId} onChange={setAudienceId} error={err('audienceId')} />
        <div className="row">
          <SelectField
            label="Trigger"
            value={triggerType}
            onChange={(e) => setTriggerType(e.target.value as typeof triggerType)}
            options={[
              { value: 'URL_MATCH', label: 'When the page URL matches' },
              { value: 'MANUAL', label: 'Manually (Guidance.startFlow)' },
              { value: 'NONE', label: 'On every page' },
            ]}
            error={err('trigger.type')}
          />
          {triggerType === 'URL_MATCH' ? (
            <>
              <SelectField
                label="Match"
                value={matchType}
                onChange={(e) => setMatchType(e.target.value)}
                options={MATCH_TYPES.map((m) => ({ value: m, label: m.replace('_', ' ') }))}
                error={err('trigger.config.matchType')}
              />
              <TextField
                label="URL pattern"
                placeholder="/dashboard"
                value={pattern}
                onChange={(e) => setPattern(e.target.value)}
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
            value={scheduledAt}
            onChange={(e) => setScheduledAt(e.target.value)}
            error={err('scheduledAt')}
            hint="Publishing before this time schedules the flow."
          />
          <TextField
            label="Stop showing at"
            type="datetime-local"
            value={expiresAt}
            onChange={(e) => setExpiresAt(e.target.value)}
            error={err('expiresAt')}
          />
        </div>
      </fieldset>
      <FormError
        error={save.error}
        claimed={['name', 'description', 'template', 'audienceId', 'trigger', 'scheduledAt', 'expiresAt']}
      />
      {save.isSuccess ? <Notice kind="success">Flow saved.</Notice> : null}
      {canEdit ? (
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save
          </Button>
        </div>
      ) : null}
    </form>
  );
}
