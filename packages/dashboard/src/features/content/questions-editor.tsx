import { Checkbox, moveItem, SelectField, TextField } from '../../kit';
import { ChoicesEditor } from './choices-editor';
import { RowHead } from './row-head';
import {
  CHOICE_TYPES,
  choicesOf,
  MAX_ROWS,
  mergeOptions,
  newQuestion,
  optionsOf,
  QUESTION_TYPES,
  RANGE_TYPES,
  type Row,
  removeRow,
  retypeQuestion,
  updateRow,
} from './rows';

type ErrorAt = (path: string) => string | undefined;

/**
 * A survey's questions: added, removed and reordered with buttons (keyboard and screen reader
 * friendly); each with its text, type, required flag, and the choices or range its type takes.
 */
export function QuestionsEditor({
  value,
  onChange,
  errorAt,
}: {
  value: Row[];
  onChange(next: Row[]): void;
  errorAt: ErrorAt;
}) {
  const listError = errorAt('questions');
  return (
    <fieldset className="list-editor">
      <legend className="field-legend">Questions</legend>
      {value.map((q, i) => (
        <QuestionRow
          // questions are positional (a new one has no key yet)
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          key={i}
          question={q}
          n={i + 1}
          count={value.length}
          onChange={(patch) => onChange(updateRow(value, i, patch))}
          onMove={(to) => onChange(moveItem(value, i, to) ?? value)}
          onRemove={() => onChange(removeRow(value, i))}
          errorAt={(p) => errorAt(`questions.${i}.${p}`)}
        />
      ))}
      {listError && !value.length ? (
        <p className="field-error" role="alert">
          {listError}
        </p>
      ) : null}
      <div>
        <button
          type="button"
          className="btn btn-secondary"
          disabled={value.length >= MAX_ROWS}
          onClick={() => onChange([...value, newQuestion()])}
        >
          Add question
        </button>
      </div>
    </fieldset>
  );
}

function QuestionRow({
  question: q,
  n,
  count,
  onChange,
  onMove,
  onRemove,
  errorAt: at,
}: {
  question: Row;
  n: number;
  count: number;
  onChange(patch: Row): void;
  onMove(to: number): void;
  onRemove(): void;
  errorAt: ErrorAt;
}) {
  const type = String(q.type ?? 'TEXT');
  const options = optionsOf(q);
  const setOptions = (patch: Row) => onChange({ options: mergeOptions(options, patch) });
  const bound = (key: 'min' | 'max', label: string, placeholder: string) => (
    <TextField
      label={`Question ${n} ${label}`}
      type="number"
      step={1}
      placeholder={placeholder}
      value={options[key] === undefined ? '' : String(options[key])}
      onChange={(e) =>
        setOptions({ [key]: e.target.value === '' ? undefined : Math.round(Number(e.target.value)) })
      }
      error={at(`options.${key}`)}
    />
  );
  return (
    <fieldset className="list-row" aria-label={`Question ${n}`}>
      <RowHead
        noun="question"
        n={n}
        count={count}
        title={`Question ${n}`}
        onMove={onMove}
        onRemove={onRemove}
      />
      <TextField
        label={`Question ${n} text`}
        value={String(q.question ?? '')}
        onChange={(e) => onChange({ question: e.target.value })}
        error={at('question')}
      />
      <div className="row">
        <SelectField
          label={`Question ${n} type`}
          value={type}
          options={QUESTION_TYPES}
          onChange={(e) => onChange(retypeQuestion(q, e.target.value))}
          error={at('type')}
        />
        <Checkbox
          label="Required"
          checked={q.required === true}
          onChange={(e) => onChange({ required: e.target.checked })}
        />
      </div>
      {CHOICE_TYPES.has(type) ? (
        <ChoicesEditor
          n={n}
          choices={choicesOf(q)}
          onChange={(choices) => setOptions({ choices })}
          error={at('options')}
        />
      ) : null}
      {RANGE_TYPES.has(type) ? (
        <div className="row">
          {bound('min', 'lowest value', '1')}
          {bound('max', 'highest value', '5')}
        </div>
      ) : null}
    </fieldset>
  );
}
