import {
  addBranch,
  badBranchLabel,
  branchesOf,
  branchLabelsValid,
  MAX_BRANCHES,
  MIN_BRANCHES,
  type NodeFormProps,
  percentageOf,
  removeBranch,
  setBranch,
  splitTotal,
} from './node-config';

/** SPLIT: label + percentage rows (each label names an edge), added and removed, with the running total. */
export function SplitForm({ config, onChange }: NodeFormProps) {
  const branches = branchesOf(config);
  const set = (next: typeof branches) => onChange({ config: { ...config, branches: next } });
  const sum = splitTotal(branches);
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
                  aria-invalid={badBranchLabel(branches, i) ? true : undefined}
                  onChange={(e) => set(setBranch(branches, i, { label: e.target.value }))}
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
                  onChange={(e) => set(setBranch(branches, i, { percentage: percentageOf(e.target.value) }))}
                />
              </td>
              <td>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={`Remove branch ${i + 1}`}
                  disabled={branches.length <= MIN_BRANCHES}
                  onClick={() => set(removeBranch(branches, i))}
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
          disabled={branches.length >= MAX_BRANCHES}
          onClick={() => set(addBranch(branches))}
        >
          Add branch
        </button>
        <output className={sum === 100 ? 'muted small' : 'field-error'} aria-live="polite">
          Total {sum}%{sum === 100 ? '' : ' (must be 100% to publish)'}
        </output>
      </div>
      {branchLabelsValid(branches) ? null : (
        <p className="field-error" role="alert">
          Each branch needs its own label.
        </p>
      )}
    </fieldset>
  );
}
