import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, must } from '../../app/api';
import { useCan, useSiteId } from '../../app/session';
import {
  Button,
  FormError,
  fieldError,
  Loading,
  Notice,
  Page,
  SelectField,
  StatusBadge,
  TextArea,
  TextField,
} from '../../kit/ui';
import { AudiencePicker } from '../audiences/audience-picker';
import { CONTENT_TYPES, type ContentType, collectionPath } from './content-page';
import { QuestionsEditor, TaskItemsEditor, withOrder } from './row-editors';

type Item = Record<string, unknown> & { id: string; name: string; status: string; audienceId: string | null };

/** What a new item of each type starts with (the API's create body, less name and siteId). */
const DEFAULTS: Record<ContentType, Record<string, unknown>> = {
  tooltips: { targetSelector: '#help', content: { text: 'A helpful hint.' }, position: 'AUTO' },
  beacons: { targetSelector: '#new-feature', content: { message: 'New!' }, animation: 'subtle' },
  'task-lists': {
    description: 'Get set up in three steps',
    items: [
      { title: 'Complete your profile', actionType: 'NAVIGATE', actionConfig: { url: '/profile' }, order: 0 },
      { title: 'Invite a teammate', actionType: 'NAVIGATE', actionConfig: { url: '/team' }, order: 1 },
    ],
  },
  surveys: {
    questions: [
      { type: 'RATING', question: 'How easy was this?', required: true, options: {}, order: 0 },
      {
        type: 'SINGLE_CHOICE',
        question: 'What brought you here?',
        required: false,
        options: { choices: ['Search', 'A friend', 'Other'] },
        order: 1,
      },
    ],
  },
  announcements: { type: 'MODAL', content: { title: "What's new", body: 'We shipped something great.' } },
  'self-help': { config: { position: 'right' }, items: { articles: [] } },
  nps: {
    question: 'How likely are you to recommend us to a friend?',
    followUpQuestion: 'What is the main reason for your score?',
  },
};

/** The list edited with a row editor (content-lists.tsx), per type. */
const ROWS: Partial<Record<ContentType, 'questions' | 'items'>> = {
  surveys: 'questions',
  'task-lists': 'items',
};

/** Fields edited as plain inputs, per type; the rows above; anything else of the record as JSON. */
const SIMPLE: Record<
  ContentType,
  readonly { key: string; label: string; options?: readonly string[]; path?: [string, string] }[]
> = {
  tooltips: [
    { key: 'targetSelector', label: 'Target element (CSS selector)' },
    { key: 'text', label: 'Text', path: ['content', 'text'] },
    { key: 'position', label: 'Position', options: ['AUTO', 'TOP', 'BOTTOM', 'LEFT', 'RIGHT'] },
    { key: 'targetUrl', label: 'Only on URL' },
  ],
  beacons: [
    { key: 'targetSelector', label: 'Target element (CSS selector)' },
    { key: 'message', label: 'Message', path: ['content', 'message'] },
    { key: 'animation', label: 'Animation', options: ['none', 'subtle', 'full'] },
    { key: 'targetUrl', label: 'Only on URL' },
  ],
  'task-lists': [{ key: 'description', label: 'Description' }],
  surveys: [],
  announcements: [
    { key: 'type', label: 'Display', options: ['MODAL', 'BANNER', 'SLIDEOUT', 'TOAST'] },
    { key: 'title', label: 'Title', path: ['content', 'title'] },
    { key: 'body', label: 'Body', path: ['content', 'body'] },
  ],
  'self-help': [],
  nps: [
    { key: 'question', label: 'Question' },
    { key: 'followUpQuestion', label: 'Follow-up question' },
  ],
};
const JSON_FIELDS: Record<ContentType, readonly string[]> = {
  tooltips: [],
  beacons: [],
  'task-lists': [],
  surveys: [],
  announcements: [],
  'self-help': ['config', 'items'],
  nps: [],
};
const TRIGGERS: Record<ContentType, boolean> = {
  tooltips: true,
  beacons: true,
  'task-lists': false,
  surveys: true,
  announcements: true,
  'self-help': false,
  nps: true,
};
const SERVER_FIELDS = new Set([
  'id',
  'tenantId',
  'contentType',
  'status',
  'publishedAt',
  'archivedAt',
  'createdAt',
  'updatedAt',
  'siteId',
]);

export default function ContentEditor() {
  const { type = 'tooltips', id = 'new' } = useParams();
  const meta = CONTENT_TYPES.find((t) => t.value === type) ?? CONTENT_TYPES[0];
  const isNew = id === 'new';
  const item = useQuery({
    queryKey: ['content-item', meta.value, id],
    enabled: !isNew,
    queryFn: async () =>
      (
        await must(
          api.GET(`${collectionPath(meta.value)}/{id}` as '/api/content/tooltips/{id}', {
            params: { path: { id } },
          }),
        )
      ).data as unknown as Item,
  });
  if (!isNew && item.isPending) return <Loading />;
  if (!isNew && item.isError) return <FormError error={item.error} />;
  return (
    <Editor
      key={`${meta.value}:${id}:${item.data?.updatedAt ?? ''}`}
      type={meta.value}
      one={meta.one}
      label={meta.label}
      item={item.data}
    />
  );
}

function Editor({ type, one, label, item }: { type: ContentType; one: string; label: string; item?: Item }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const siteId = useSiteId();
  const canEdit = useCan('EDITOR');
  const initial: Record<string, unknown> = item ?? {
    name: '',
    audienceId: null,
    triggerConfig: null,
    ...DEFAULTS[type],
  };
  const [record, setRecord] = useState<Record<string, unknown>>(initial);
  const [json, setJson] = useState<Record<string, string>>(() =>
    Object.fromEntries(JSON_FIELDS[type].map((k) => [k, JSON.stringify(initial[k] ?? null, null, 2)])),
  );
  const [trigger, setTrigger] = useState(
    initial.triggerConfig ? JSON.stringify(initial.triggerConfig, null, 2) : '',
  );
  const [jsonError, setJsonError] = useState<Record<string, string>>({});
  const base = collectionPath(type);
  const get = (f: { key: string; path?: [string, string] }) => {
    const v = f.path
      ? (record[f.path[0]] as Record<string, unknown> | undefined)?.[f.path[1]]
      : record[f.key];
    return typeof v === 'string' ? v : '';
  };
  const set = (f: { key: string; path?: [string, string] }, value: string) => {
    if (f.path)
      setRecord({ ...record, [f.path[0]]: { ...(record[f.path[0]] as object), [f.path[1]]: value } });
    else
      setRecord({
        ...record,
        [f.key]: value === '' && (f.key === 'targetUrl' || f.key === 'followUpQuestion') ? null : value,
      });
  };
  const body = (): Record<string, unknown> | undefined => {
    const errors: Record<string, string> = {};
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) if (!SERVER_FIELDS.has(k)) out[k] = v;
    const rows = ROWS[type];
    if (rows) out[rows] = withOrder((record[rows] as Record<string, unknown>[] | undefined) ?? []);
    for (const k of JSON_FIELDS[type]) {
      try {
        out[k] = JSON.parse(json[k] ?? 'null');
      } catch {
        errors[k] = 'Not valid JSON';
      }
    }
    if (TRIGGERS[type]) {
      try {
        out.triggerConfig = trigger.trim() ? JSON.parse(trigger) : null;
      } catch {
        errors.triggerConfig = 'Not valid JSON';
      }
    } else delete out.triggerConfig;
    out.audienceId = out.audienceId || null;
    setJsonError(errors);
    return Object.keys(errors).length ? undefined : out;
  };
  const save = useMutation({
    mutationFn: async (payload: Record<string, unknown>) => {
      if (item)
        return must(
          api.PATCH(`${base}/{id}` as '/api/content/tooltips/{id}', {
            params: { path: { id: item.id } },
            body: payload as never,
          }),
        );
      return must(api.POST(base as '/api/content/tooltips', { body: { ...payload, siteId } as never }));
    },
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['content', type] });
      void client.invalidateQueries({ queryKey: ['content-item', type] });
      if (!item) navigate(`/content/${type}/${res.data.id}`, { replace: true });
    },
  });
  const transition = useMutation({
    mutationFn: async (action: 'publish' | 'unpublish' | 'restore' | 'archive') => {
      const path = { params: { path: { id: item!.id } } };
      if (action === 'archive') return must(api.DELETE(`${base}/{id}` as '/api/content/tooltips/{id}', path));
      return must(api.POST(`${base}/{id}/${action}` as '/api/content/tooltips/{id}/publish', path));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['content'] });
      void client.invalidateQueries({ queryKey: ['content-item', type] });
    },
  });
  const err = (p: string) => fieldError(save.error, p);
  const status = item?.status;
  return (
    <Page
      title={
        <>
          <Link to={`/content/${type}`} className="crumb">
            {label}
          </Link>{' '}
          / {item ? item.name : `New ${one}`} {status ? <StatusBadge status={status} /> : null}
        </>
      }
      actions={
        canEdit && item ? (
          <>
            {status === 'ARCHIVED' ? (
              <Button onClick={() => transition.mutate('restore')}>Restore</Button>
            ) : (
              <Button variant="danger" onClick={() => transition.mutate('archive')}>
                Archive
              </Button>
            )}
            {status === 'PUBLISHED' ? (
              <Button onClick={() => transition.mutate('unpublish')}>Unpublish</Button>
            ) : null}
            {status === 'DRAFT' || status === 'SCHEDULED' ? (
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
      {!canEdit ? <Notice>You have view-only access.</Notice> : null}
      <FormError error={transition.error} />
      {transition.isSuccess ? (
        <Notice kind="success">
          Done: the {one} is now{' '}
          {transition.variables === 'publish'
            ? 'published'
            : transition.variables === 'unpublish'
              ? 'a draft'
              : transition.variables === 'archive'
                ? 'archived'
                : 'restored'}
          .
        </Notice>
      ) : null}
      <div className="grid-2">
        <form
          className="card pad"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const payload = body();
            if (payload) save.mutate(payload);
          }}
        >
          <fieldset disabled={!canEdit}>
            <TextField
              label="Name"
              value={String(record.name ?? '')}
              onChange={(e) => setRecord({ ...record, name: e.target.value })}
              error={err('name')}
            />
            {SIMPLE[type].map((f) =>
              f.options ? (
                <SelectField
                  key={f.key}
                  label={f.label}
                  value={get(f)}
                  onChange={(e) => set(f, e.target.value)}
                  options={f.options}
                  error={err(f.path ? f.path.join('.') : f.key)}
                />
              ) : f.key === 'body' || f.key === 'description' ? (
                <TextArea
                  key={f.key}
                  label={f.label}
                  rows={3}
                  value={get(f)}
                  onChange={(e) => set(f, e.target.value)}
                  error={err(f.path ? f.path.join('.') : f.key)}
                />
              ) : (
                <TextField
                  key={f.key}
                  label={f.label}
                  value={get(f)}
                  onChange={(e) => set(f, e.target.value)}
                  error={err(f.path ? f.path.join('.') : f.key)}
                />
              ),
            )}
            <AudiencePicker
              value={String(record.audienceId ?? '')}
              onChange={(v) => setRecord({ ...record, audienceId: v || null })}
              error={err('audienceId')}
            />
            {ROWS[type] === 'questions' ? (
              <QuestionsEditor
                value={(record.questions as Record<string, unknown>[] | undefined) ?? []}
                onChange={(questions) => setRecord({ ...record, questions })}
                errorAt={err}
              />
            ) : null}
            {ROWS[type] === 'items' ? (
              <TaskItemsEditor
                value={(record.items as Record<string, unknown>[] | undefined) ?? []}
                onChange={(items) => setRecord({ ...record, items })}
                errorAt={err}
              />
            ) : null}
            {JSON_FIELDS[type].map((k) => (
              <TextArea
                key={k}
                label={`${k.charAt(0).toUpperCase()}${k.slice(1)} (JSON)`}
                rows={10}
                spellCheck={false}
                className="mono"
                value={json[k] ?? ''}
                onChange={(e) => setJson({ ...json, [k]: e.target.value })}
                error={jsonError[k] ?? err(k)}
              />
            ))}
            {TRIGGERS[type] ? (
              <TextArea
                label="Trigger (JSON, empty for none)"
                rows={3}
                spellCheck={false}
                placeholder='{ "type": "url_match", "pattern": "/pricing" }'
                value={trigger}
                onChange={(e) => setTrigger(e.target.value)}
                error={jsonError.triggerConfig ?? err('triggerConfig')}
                hint="type: url_match (pattern), time_on_page (delay ms), scroll_depth (percentage), exit_intent, side_button, manual."
              />
            ) : null}
          </fieldset>
          <FormError
            error={save.error}
            claimed={[
              'name',
              'audienceId',
              'triggerConfig',
              ...JSON_FIELDS[type],
              ...(ROWS[type] ? [ROWS[type]] : []),
              ...SIMPLE[type].map((f) => (f.path ? f.path[0] : f.key)),
            ]}
          />
          {save.isSuccess ? <Notice kind="success">Saved.</Notice> : null}
          {canEdit ? (
            <div className="form-actions">
              <Button type="submit" variant="primary" busy={save.isPending}>
                {item ? 'Save' : `Create ${one}`}
              </Button>
            </div>
          ) : null}
        </form>
        {item && (type === 'nps' || type === 'surveys') ? <Responses type={type} id={item.id} /> : null}
      </div>
    </Page>
  );
}

function Responses({ type, id }: { type: 'nps' | 'surveys'; id: string }) {
  const results = useQuery({
    queryKey: ['nps-results', id],
    enabled: type === 'nps',
    queryFn: async () =>
      (await must(api.GET('/api/nps-surveys/{id}/results', { params: { path: { id } } }))).data,
  });
  const responses = useQuery({
    queryKey: ['responses', type, id],
    queryFn: async (): Promise<{ data: { id: string; submittedAt: string; answer: unknown }[] }> => {
      if (type === 'nps') {
        const res = await must(api.GET('/api/nps-surveys/{id}/responses', { params: { path: { id } } }));
        return {
          data: res.data.map((x) => ({
            id: x.id,
            submittedAt: x.submittedAt,
            answer: { score: x.score, comment: x.comment },
          })),
        };
      }
      const res = await must(api.GET('/api/content/surveys/{id}/responses', { params: { path: { id } } }));
      return { data: res.data.map((x) => ({ id: x.id, submittedAt: x.submittedAt, answer: x.response })) };
    },
  });
  const r = results.data;
  return (
    <div className="card pad" style={{ display: 'grid', gap: 14, alignContent: 'start' }}>
      <h2>Responses</h2>
      {r ? (
        <div className="stats">
          <div className="stat card">
            <div className="value">{r.npsScore}</div>
            <div className="label">NPS</div>
          </div>
          <div className="stat card">
            <div className="value">{r.promoterPercentage}%</div>
            <div className="label">Promoters</div>
          </div>
          <div className="stat card">
            <div className="value">{r.detractorPercentage}%</div>
            <div className="label">Detractors</div>
          </div>
          <div className="stat card">
            <div className="value">{r.totalResponses}</div>
            <div className="label">Responses</div>
          </div>
        </div>
      ) : null}
      {responses.isError ? <FormError error={responses.error} /> : null}
      {responses.data?.data.length === 0 ? <p className="muted">No responses yet.</p> : null}
      {responses.data && responses.data.data.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Submitted</th>
              <th scope="col">Answer</th>
            </tr>
          </thead>
          <tbody>
            {responses.data.data.map((x) => (
              <tr key={x.id}>
                <td>{new Date(x.submittedAt).toLocaleString()}</td>
                <td>
                  <code>{JSON.stringify(x.answer)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
