/** The choices of a choice question: each edited in place, removed (one stays), or added. */
export function ChoicesEditor({
  n,
  choices,
  onChange,
  error,
}: {
  n: number;
  choices: string[];
  onChange(choices: string[]): void;
  error?: string;
}) {
  return (
    <fieldset className="list-editor">
      <legend className="small">Question {n} choices</legend>
      {choices.map((c, k) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: choices are positional
        <div className="row-inline" key={k}>
          <input
            aria-label={`Question ${n} choice ${k + 1}`}
            value={c}
            onChange={(e) => onChange(choices.map((x, m) => (m === k ? e.target.value : x)))}
            style={{ flex: 1 }}
          />
          <button
            type="button"
            className="icon-btn"
            aria-label={`Remove question ${n} choice ${k + 1}`}
            disabled={choices.length <= 1}
            onClick={() => onChange(choices.filter((_, m) => m !== k))}
          >
            ×
          </button>
        </div>
      ))}
      <div>
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => onChange([...choices, `Option ${choices.length + 1}`])}
        >
          Add choice
        </button>
      </div>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
