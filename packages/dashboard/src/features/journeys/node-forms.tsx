import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, must, type Schemas } from '../../app/api';
import { SelectField, TextArea, TextField } from '../../kit/ui';
import { asGroup, RuleGroup, type RuleNode } from '../audiences/rule-builder';

/**
 * The journey canvas's node configuration forms: one per node type, following the server's
 * shapes (`src/engine/journeys/schemas.ts`). Every control is a labelled native input, so the
 * panel works with the keyboard and a screen reader; "Advanced (JSON)" stays as a disclosure
 * for anyone who prefers to paste a configuration.
 */

export type NodeType = Schemas['JourneyNode']['type'];
type Config = Record<string, unknown>;

export interface NodeFormProps {
  type: NodeType;
  config: Config;
  contentId: string | null;
  onChange(patch: { config?: Config; contentId?: string | null }): void;
}

// ---- durations ---------------------------------------------------------------------------------

export const UNITS = [
  { value: 'minutes', label: 'minutes', ms: 60_000 },
  { value: 'hours', label: 'hours', ms: 3_600_000 },
  { value: 'days', label: 'days', ms: 86_400_000 },
] as const;
type Unit = (typeof UNITS)[number]['value'];
const unitMs = (unit: Unit) => UNITS.find((u) => u.value === unit)!.ms;

/** The largest unit a duration is a whole number of (minutes when none is). */
export function splitDuration(ms: number): { amount: number; unit: Unit } {
  for (const u of [...UNITS].reverse()) {
    if (ms > 0 && ms % u.ms === 0) return { amount: ms / u.ms, unit: u.value };
  }
  return { amount: Math.round((ms / 60_000) * 100) / 100, unit: 'minutes' };
}

/** A duration in milliseconds as an amount and a unit (minutes, hours, days). */
function DurationField({
  label,
  ms,
  onChange,
  hint,
}: {
  label: string;
  ms: number;
  onChange(ms: number): void;
  hint?: string;
}) {
  const initial = splitDuration(ms);
  const [unit, setUnit] = useState<Unit>(initial.unit);
  const [text, setText] = useState(String(initial.amount));
  const id = useId();
  const amount = Number(text);
  const total = Math.round(amount * unitMs(unit));
  // the duration changed elsewhere (the JSON disclosure): show the new one
  if (text.trim() !== '' && amount > 0 && Number.isFinite(ms) && ms > 0 && total !== ms) {
    const next = splitDuration(ms);
    setText(String(next.amount));
    setUnit(next.unit);
  }
  const error =
    text.trim() === '' || !Number.isFinite(amount) || amount <= 0
      ? 'Enter a positive number'
      : total < 1000 || total > 365 * 86_400_000
        ? 'Between one minute and 365 days'
        : undefined;
  const set = (nextText: string, nextUnit: Unit) => {
    setText(nextText);
    setUnit(nextUnit);
    const n = Number(nextText);
    if (nextText.trim() !== '' && Number.isFinite(n) && n > 0) onChange(Math.round(n * unitMs(nextUnit)));
  };
  return (
    <fieldset className={`field duration${error ? ' field-invalid' : ''}`}>
      <legend>{label}</legend>
      <div className="row-inline">
        <input
          id={`${id}-amount`}
          type="number"
          min={1}
          step="any"
          inputMode="decimal"
          aria-label={`${label} amount`}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : hint ? `${id}-hint` : undefined}
          value={text}
          onChange={(e) => set(e.target.value, unit)}
        />
        <select aria-label={`${label} unit`} value={unit} onChange={(e) => set(text, e.target.value as Unit)}>
          {UNITS.map((u) => (
            <option key={u.value} value={u.value}>
              {u.label}
            </option>
          ))}
        </select>
      </div>
      {error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </fieldset>
  );
}

// ---- per type ----------------------------------------------------------------------------------

const TRIGGER_TYPES = [
  { value: 'URL_MATCH', label: 'Page URL matches' },
  { value: 'CUSTOM_EVENT', label: 'Custom event' },
  { value: 'ELEMENT_CLICK', label: 'Element clicked' },
  { value: 'MANUAL', label: 'Manual (API enrollment)' },
] as const;
const MATCH_TYPES = [
  { value: 'contains', label: 'contains' },
  { value: 'equals', label: 'equals' },
  { value: 'starts_with', label: 'starts with' },
  { value: 'ends_with', label: 'ends with' },
  { value: 'glob', label: 'glob (* and **)' },
  { value: 'regex', label: 'regular expression' },
] as const;
const TRIGGER_DEFAULTS: Record<string, Config> = {
  URL_MATCH: { matchType: 'contains', pattern: '/' },
  CUSTOM_EVENT: { eventName: '' },
  ELEMENT_CLICK: { selector: '' },
  MANUAL: {},
};

function TriggerForm({ config, onChange }: NodeFormProps) {
  const type = String(config.triggerType ?? 'URL_MATCH');
  const tc = (config.triggerConfig ?? {}) as Config;
  const setTc = (patch: Config) => onChange({ config: { ...config, triggerConfig: { ...tc, ...patch } } });
  return (
    <>
      <SelectField
        label="Trigger type"
        value={type}
        options={TRIGGER_TYPES}
        onChange={(e) =>
          onChange({
            config: { triggerType: e.target.value, triggerConfig: { ...TRIGGER_DEFAULTS[e.target.value] } },
          })
        }
      />
      {type === 'URL_MATCH' ? (
        <>
          <SelectField
            label="Match type"
            value={String(tc.matchType ?? 'contains')}
            options={MATCH_TYPES}
            onChange={(e) => setTc({ matchType: e.target.value })}
          />
          <TextField
            label="URL pattern"
            placeholder="/onboarding"
            value={String(tc.pattern ?? '')}
            onChange={(e) => setTc({ pattern: e.target.value })}
          />
        </>
      ) : null}
      {type === 'CUSTOM_EVENT' ? (
        <TextField
          label="Event name"
          placeholder="signed_up"
          value={String(tc.eventName ?? '')}
          onChange={(e) => setTc({ eventName: e.target.value })}
        />
      ) : null}
      {type === 'ELEMENT_CLICK' ? (
        <TextField
          label="Element (CSS selector)"
          placeholder="#upgrade-button"
          value={String(tc.selector ?? '')}
          onChange={(e) => setTc({ selector: e.target.value })}
        />
      ) : null}
      {type === 'MANUAL' ? (
        <p className="hint">Users enter this journey when they are enrolled through the API.</p>
      ) : null}
    </>
  );
}

export const CONTENT_KINDS = [
  { value: 'flow', label: 'Flow', path: '/api/flows' },
  { value: 'tooltip', label: 'Tooltip', path: '/api/content/tooltips' },
  { value: 'beacon', label: 'Beacon', path: '/api/content/beacons' },
  { value: 'task-list', label: 'Task list', path: '/api/content/task-lists' },
  { value: 'survey', label: 'Survey', path: '/api/content/surveys' },
  { value: 'announcement', label: 'Announcement', path: '/api/content/announcements' },
  { value: 'self-help', label: 'Self-help widget', path: '/api/content/self-help' },
  { value: 'nps-survey', label: 'NPS survey', path: '/api/nps-surveys' },
] as const;

/** The existing items of one content type, by name (the first 100; archived ones are left out). */
export function useContentItems(kind: string) {
  const path = CONTENT_KINDS.find((k) => k.value === kind)?.path ?? '/api/flows';
  return useQuery({
    queryKey: ['journey-content-options', path],
    queryFn: async () => {
      const res = await must(
        api.GET(path as '/api/content/tooltips', { params: { query: { limit: '100' } } }),
      );
      return (res.data as { id: string; name: string; status: string }[]).filter(
        (x) => x.status !== 'ARCHIVED',
      );
    },
  });
}

function ContentForm({ config, contentId, onChange }: NodeFormProps) {
  const kind = String(config.contentType ?? 'flow');
  const items = useContentItems(kind);
  const options = [
    { value: '', label: items.isPending ? 'Loading…' : 'Choose one' },
    ...(items.data ?? []).map((x) => ({
      value: x.id,
      label: x.status === 'PUBLISHED' ? x.name : `${x.name} (${x.status.toLowerCase()})`,
    })),
  ];
  if (contentId && !options.some((o) => o.value === contentId))
    options.push({ value: contentId, label: 'Selected item (not in the first 100)' });
  const label = CONTENT_KINDS.find((k) => k.value === kind)?.label ?? 'Item';
  return (
    <>
      <SelectField
        label="Content type"
        value={kind}
        options={CONTENT_KINDS}
        onChange={(e) => onChange({ config: { ...config, contentType: e.target.value }, contentId: null })}
      />
      <SelectField
        label={label}
        value={contentId ?? ''}
        options={options}
        onChange={(e) => onChange({ contentId: e.target.value || null })}
        error={items.isError ? 'Could not load the list' : undefined}
        hint={
          items.data && items.data.length === 0
            ? `No ${label.toLowerCase()} yet: create one first.`
            : 'Shown to the user when they reach this node.'
        }
      />
    </>
  );
}

function WaitForm({ config, onChange }: NodeFormProps) {
  return (
    <DurationField
      label="Wait for"
      ms={Number(config.duration ?? 86_400_000)}
      onChange={(duration) => onChange({ config: { ...config, duration } })}
      hint="Then the user moves on to the next node."
    />
  );
}

function WaitForEventForm({ config, onChange }: NodeFormProps) {
  const timeout = typeof config.timeout === 'number' ? config.timeout : undefined;
  const [lastTimeout, setLastTimeout] = useState(timeout ?? 3 * 86_400_000);
  return (
    <>
      <TextField
        label="Event name"
        placeholder="signed_up"
        value={String(config.eventName ?? '')}
        onChange={(e) => onChange({ config: { ...config, eventName: e.target.value } })}
      />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={timeout !== undefined}
          onChange={(e) => {
            const { timeout: _drop, ...rest } = config;
            onChange({ config: e.target.checked ? { ...rest, timeout: lastTimeout } : rest });
          }}
        />{' '}
        Give up after a while (adds a <code>timeout</code> edge)
      </label>
      {timeout !== undefined ? (
        <DurationField
          label="Time out after"
          ms={timeout}
          onChange={(ms) => {
            setLastTimeout(ms);
            onChange({ config: { ...config, timeout: ms } });
          }}
        />
      ) : null}
    </>
  );
}

function ConditionForm({ config, onChange }: NodeFormProps) {
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

type Branch = { label: string; percentage: number };

function SplitForm({ config, onChange }: NodeFormProps) {
  const branches = (config.branches as Branch[] | undefined) ?? [];
  const set = (next: Branch[]) => onChange({ config: { ...config, branches: next } });
  const sum = branches.reduce((s, b) => s + (Number(b.percentage) || 0), 0);
  const labels = branches.map((b) => b.label.trim());
  const nextLabel = () => {
    for (let i = 0; i < 26; i++) {
      const l = String.fromCharCode(65 + i);
      if (!labels.includes(l)) return l;
    }
    return `Branch ${branches.length + 1}`;
  };
  return (
    <fieldset className="field split-branches">
      <legend>Branches</legend>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Label (edge)</th>
            <th scope="col">Percentage</th>
            <th scope="col">
              <span className="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {branches.map((b, i) => (
            // branches have no ids: a row's position is its identity
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i}>
              <td>
                <input
                  aria-label={`Branch ${i + 1} label`}
                  value={b.label}
                  aria-invalid={labels.indexOf(b.label.trim()) !== i || !b.label.trim() ? true : undefined}
                  onChange={(e) =>
                    set(branches.map((x, j) => (j === i ? { ...x, label: e.target.value } : x)))
                  }
                />
              </td>
              <td>
                <input
                  aria-label={`Branch ${i + 1} percentage`}
                  type="number"
                  min={0}
                  max={100}
                  step={1}
                  value={String(b.percentage)}
                  onChange={(e) =>
                    set(
                      branches.map((x, j) =>
                        j === i ? { ...x, percentage: Math.round(Number(e.target.value) || 0) } : x,
                      ),
                    )
                  }
                />
              </td>
              <td>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={`Remove branch ${i + 1}`}
                  disabled={branches.length <= 2}
                  onClick={() => set(branches.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row-inline">
        <button
          type="button"
          className="btn btn-secondary"
          disabled={branches.length >= 10}
          onClick={() => set([...branches, { label: nextLabel(), percentage: Math.max(0, 100 - sum) }])}
        >
          Add branch
        </button>
        <output className={sum === 100 ? 'muted small' : 'field-error'} aria-live="polite">
          Total {sum}%{sum === 100 ? '' : ' (must be 100% to publish)'}
        </output>
      </div>
      {new Set(labels).size !== labels.length || labels.some((l) => !l) ? (
        <p className="field-error" role="alert">
          Each branch needs its own label.
        </p>
      ) : null}
    </fieldset>
  );
}

const FORMS: Record<NodeType, ((p: NodeFormProps) => React.ReactNode) | null> = {
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

/** The configuration as JSON; edits apply once they parse to an object. */
function AdvancedJson({ config, onChange }: { config: Config; onChange(c: Config): void }) {
  const current = JSON.stringify(config, null, 2);
  const [draft, setDraft] = useState<{ text: string; from: string }>({ text: current, from: current });
  const [error, setError] = useState<string>();
  // the form changed the config since the last edit here: show the new one
  const text = draft.from === current ? draft.text : current;
  return (
    <details className="advanced">
      <summary>Advanced (JSON)</summary>
      <TextArea
        label="Node configuration (JSON)"
        rows={8}
        className="mono"
        spellCheck={false}
        value={text}
        error={error}
        onChange={(e) => {
          const value = e.target.value;
          try {
            const parsed = JSON.parse(value);
            if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
              throw new Error('An object is expected');
            setError(undefined);
            setDraft({ text: value, from: JSON.stringify(parsed, null, 2) });
            onChange(parsed);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
            setDraft({ text: value, from: current });
          }
        }}
      />
    </details>
  );
}
