import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, must } from '../../app/api';
import { Checkbox, SelectField, TextField } from '../../kit/ui';

/**
 * Row editors of the content editor: a survey's questions and a task list's items. Rows are added,
 * removed and reordered with buttons (keyboard and screen reader friendly); `order` is the row's
 * position when saved. Unknown keys of a row (a question's `key`) are kept as they are.
 */

type Row = Record<string, unknown>;
type ErrorAt = (path: string) => string | undefined;

function move<T>(list: T[], from: number, to: number): T[] {
  const next = [...list];
  const [x] = next.splice(from, 1);
  next.splice(to, 0, x as T);
  return next;
}

/** The head of a row: its title, and the move up / move down / remove buttons. */
function RowHead({
  noun,
  n,
  count,
  title,
  onMove,
  onRemove,
  min = 1,
}: {
  noun: string;
  n: number;
  count: number;
  title: ReactNode;
  onMove(to: number): void;
  onRemove(): void;
  min?: number;
}) {
  return (
    <div className="list-row-head">
      <strong>{title}</strong>
      <button
        type="button"
        className="icon-btn"
        aria-label={`Move ${noun} ${n} up`}
        disabled={n === 1}
        onClick={() => onMove(n - 2)}
      >
        ↑
      </button>
      <button
        type="button"
        className="icon-btn"
        aria-label={`Move ${noun} ${n} down`}
        disabled={n === count}
        onClick={() => onMove(n)}
      >
        ↓
      </button>
      <button
        type="button"
        className="icon-btn"
        aria-label={`Remove ${noun} ${n}`}
        disabled={count <= min}
        onClick={onRemove}
      >
        ×
      </button>
    </div>
  );
}

// ---- survey questions --------------------------------------------------------------------------

export const QUESTION_TYPES = [
  { value: 'RATING', label: 'Rating' },
  { value: 'TEXT', label: 'Free text' },
  { value: 'SINGLE_CHOICE', label: 'Single choice' },
  { value: 'MULTIPLE_CHOICE', label: 'Multiple choice' },
  { value: 'DROPDOWN', label: 'Dropdown' },
  { value: 'NPS', label: 'NPS (0 to 10)' },
  { value: 'SCALE', label: 'Scale' },
  { value: 'BOOLEAN', label: 'Yes / no' },
] as const;
const CHOICE_TYPES = new Set(['SINGLE_CHOICE', 'MULTIPLE_CHOICE', 'DROPDOWN']);
const RANGE_TYPES = new Set(['RATING', 'SCALE']);

export function QuestionsEditor({
  value,
  onChange,
  errorAt,
}: {
  value: Row[];
  onChange(next: Row[]): void;
  errorAt: ErrorAt;
}) {
  const set = (i: number, patch: Row) => onChange(value.map((q, j) => (j === i ? { ...q, ...patch } : q)));
  const listError = errorAt('questions');
  return (
    <fieldset className="list-editor">
      <legend className="field-legend">Questions</legend>
      {value.map((q, i) => {
        const n = i + 1;
        const type = String(q.type ?? 'TEXT');
        const options = (q.options ?? {}) as Row;
        const choices = (options.choices as string[] | undefined) ?? [];
        const setOptions = (patch: Row) => {
          const next: Row = { ...options, ...patch };
          for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
          set(i, { options: next });
        };
        const at = (p: string) => errorAt(`questions.${i}.${p}`);
        return (
          // questions are positional (a new one has no key yet)
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          <fieldset className="list-row" key={i} aria-label={`Question ${n}`}>
            <RowHead
              noun="question"
              n={n}
              count={value.length}
              title={`Question ${n}`}
              onMove={(to) => onChange(move(value, i, to))}
              onRemove={() => onChange(value.filter((_, j) => j !== i))}
            />
            <TextField
              label={`Question ${n} text`}
              value={String(q.question ?? '')}
              onChange={(e) => set(i, { question: e.target.value })}
              error={at('question')}
            />
            <div className="row">
              <SelectField
                label={`Question ${n} type`}
                value={type}
                options={QUESTION_TYPES}
                onChange={(e) => {
                  const t = e.target.value;
                  const next: Row = {};
                  if (CHOICE_TYPES.has(t)) next.choices = choices.length ? choices : ['Option 1', 'Option 2'];
                  if (RANGE_TYPES.has(t)) {
                    if (options.min !== undefined) next.min = options.min;
                    if (options.max !== undefined) next.max = options.max;
                  }
                  set(i, { type: t, options: next });
                }}
                error={at('type')}
              />
              <Checkbox
                label="Required"
                checked={q.required === true}
                onChange={(e) => set(i, { required: e.target.checked })}
              />
            </div>
            {CHOICE_TYPES.has(type) ? (
              <fieldset className="list-editor">
                <legend className="small">Question {n} choices</legend>
                {choices.map((c, k) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: choices are positional
                  <div className="row-inline" key={k}>
                    <input
                      aria-label={`Question ${n} choice ${k + 1}`}
                      value={c}
                      onChange={(e) =>
                        setOptions({ choices: choices.map((x, m) => (m === k ? e.target.value : x)) })
                      }
                      style={{ flex: 1 }}
                    />
                    <button
                      type="button"
                      className="icon-btn"
                      aria-label={`Remove question ${n} choice ${k + 1}`}
                      disabled={choices.length <= 1}
                      onClick={() => setOptions({ choices: choices.filter((_, m) => m !== k) })}
                    >
                      ×
                    </button>
                  </div>
                ))}
                <div>
                  <button
                    type="button"
                    className="btn btn-ghost"
                    onClick={() => setOptions({ choices: [...choices, `Option ${choices.length + 1}`] })}
                  >
                    Add choice
                  </button>
                </div>
                {at('options') ? (
                  <p className="field-error" role="alert">
                    {at('options')}
                  </p>
                ) : null}
              </fieldset>
            ) : null}
            {RANGE_TYPES.has(type) ? (
              <div className="row">
                <TextField
                  label={`Question ${n} lowest value`}
                  type="number"
                  step={1}
                  placeholder="1"
                  value={options.min === undefined ? '' : String(options.min)}
                  onChange={(e) =>
                    setOptions({
                      min: e.target.value === '' ? undefined : Math.round(Number(e.target.value)),
                    })
                  }
                  error={at('options.min')}
                />
                <TextField
                  label={`Question ${n} highest value`}
                  type="number"
                  step={1}
                  placeholder="5"
                  value={options.max === undefined ? '' : String(options.max)}
                  onChange={(e) =>
                    setOptions({
                      max: e.target.value === '' ? undefined : Math.round(Number(e.target.value)),
                    })
                  }
                  error={at('options.max')}
                />
              </div>
            ) : null}
          </fieldset>
        );
      })}
      {listError && !value.length ? (
        <p className="field-error" role="alert">
          {listError}
        </p>
      ) : null}
      <div>
        <button
          type="button"
          className="btn btn-secondary"
          disabled={value.length >= 100}
          onClick={() => onChange([...value, { type: 'TEXT', question: '', required: false, options: {} }])}
        >
          Add question
        </button>
      </div>
    </fieldset>
  );
}

// ---- task-list items ---------------------------------------------------------------------------

export const TASK_ACTIONS = [
  { value: 'NAVIGATE', label: 'Go to a page of the app' },
  { value: 'EXTERNAL_LINK', label: 'Open an external link' },
  { value: 'COMPLETE_FLOW', label: 'Complete a flow' },
  { value: 'FILL_FORM', label: 'Fill in a form' },
] as const;

export function TaskItemsEditor({
  value,
  onChange,
  errorAt,
}: {
  value: Row[];
  onChange(next: Row[]): void;
  errorAt: ErrorAt;
}) {
  const flows = useQuery({
    queryKey: ['flows', 'options'],
    queryFn: () => must(api.GET('/api/flows', { params: { query: { limit: '100' } } })),
  });
  const set = (i: number, patch: Row) => onChange(value.map((q, j) => (j === i ? { ...q, ...patch } : q)));
  return (
    <fieldset className="list-editor">
      <legend className="field-legend">Tasks</legend>
      {value.map((item, i) => {
        const n = i + 1;
        const action = String(item.actionType ?? 'NAVIGATE');
        const config = (item.actionConfig ?? {}) as Row;
        const at = (p: string) => errorAt(`items.${i}.${p}`);
        const flowOptions = [
          { value: '', label: 'Choose a flow' },
          ...(flows.data?.data ?? []).map((f) => ({ value: f.id, label: f.name })),
        ];
        const flowId = String(config.flowId ?? '');
        if (flowId && !flowOptions.some((o) => o.value === flowId))
          flowOptions.push({ value: flowId, label: 'Selected flow' });
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          <fieldset className="list-row" key={i} aria-label={`Task ${n}`}>
            <RowHead
              noun="task"
              n={n}
              count={value.length}
              title={`Task ${n}`}
              onMove={(to) => onChange(move(value, i, to))}
              onRemove={() => onChange(value.filter((_, j) => j !== i))}
            />
            <TextField
              label={`Task ${n} title`}
              value={String(item.title ?? '')}
              onChange={(e) => set(i, { title: e.target.value })}
              error={at('title')}
            />
            <SelectField
              label={`Task ${n} action`}
              value={action}
              options={TASK_ACTIONS}
              onChange={(e) => set(i, { actionType: e.target.value, actionConfig: {} })}
              error={at('actionType')}
            />
            {action === 'NAVIGATE' || action === 'EXTERNAL_LINK' ? (
              <TextField
                label={`Task ${n} URL`}
                placeholder={action === 'NAVIGATE' ? '/settings/profile' : 'https://docs.example.com'}
                value={String(config.url ?? '')}
                onChange={(e) => set(i, { actionConfig: { ...config, url: e.target.value } })}
                error={at('actionConfig')}
              />
            ) : null}
            {action === 'COMPLETE_FLOW' ? (
              <SelectField
                label={`Task ${n} flow`}
                value={flowId}
                options={flowOptions}
                onChange={(e) => set(i, { actionConfig: { ...config, flowId: e.target.value } })}
                error={at('actionConfig')}
              />
            ) : null}
          </fieldset>
        );
      })}
      <div>
        <button
          type="button"
          className="btn btn-secondary"
          disabled={value.length >= 100}
          onClick={() =>
            onChange([...value, { title: '', actionType: 'NAVIGATE', actionConfig: { url: '' } }])
          }
        >
          Add task
        </button>
      </div>
    </fieldset>
  );
}

/** The rows with `order` set to their position (what the API sorts them by). */
export const withOrder = (rows: Row[]): Row[] => rows.map((r, i) => ({ ...r, order: i }));
