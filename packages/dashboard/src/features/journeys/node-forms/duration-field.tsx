import { useId, useState } from 'react';
import { durationError, splitDuration, toMs, UNITS, type Unit, unitMs } from './node-config';

/** A duration in milliseconds as an amount and a unit (minutes, hours, days). */
export function DurationField({
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
  // the duration changed elsewhere (the JSON disclosure): show the new one
  if (
    text.trim() !== '' &&
    amount > 0 &&
    Number.isFinite(ms) &&
    ms > 0 &&
    Math.round(amount * unitMs(unit)) !== ms
  ) {
    const next = splitDuration(ms);
    setText(String(next.amount));
    setUnit(next.unit);
  }
  const error = durationError(text, unit);
  const set = (nextText: string, nextUnit: Unit) => {
    setText(nextText);
    setUnit(nextUnit);
    const total = toMs(nextText, nextUnit);
    if (total !== undefined) onChange(total);
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
