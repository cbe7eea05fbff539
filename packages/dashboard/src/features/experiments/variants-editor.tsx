import { Button, fieldError, TextField } from '../../kit';
import { useFlowOptions } from '../flows';
import { MIN_VARIANTS, removeVariant, setVariant, type Variant, validateSplits } from './variants';

/** The variants: name, split and flow (or holdout) each, removable past two; the splits' total under them. */
export function VariantsEditor({
  variants,
  onChange,
  editable,
  error,
}: {
  variants: Variant[];
  onChange(variants: Variant[]): void;
  editable: boolean;
  /** The save's error: each variant's API message is shown under its field. */
  error: unknown;
}) {
  const flows = useFlowOptions();
  const splits = validateSplits(variants);
  const flowOptions = [
    { value: '', label: 'No flow (holdout)' },
    ...(flows.data?.data ?? []).map((f) => ({ value: f.id, label: f.name })),
  ];
  const set = (i: number, patch: Partial<Variant>) => onChange(setVariant(variants, i, patch));
  return (
    <>
      <h2 className="card-title">Variants (the first is the control)</h2>
      {variants.map((v, i) => (
        <div className="row" key={v.id ?? `new-${i}-${v.name}`}>
          <TextField
            label={`Variant ${i + 1} name`}
            value={v.name}
            onChange={(e) => set(i, { name: e.target.value })}
            error={fieldError(error, `variants.${i}.name`)}
          />
          <TextField
            label={`Variant ${i + 1} split (%)`}
            type="number"
            min={0}
            max={100}
            value={String(v.splitPercentage)}
            onChange={(e) => set(i, { splitPercentage: Number(e.target.value) })}
            error={fieldError(error, `variants.${i}.splitPercentage`)}
          />
          <div className="field">
            <label htmlFor={`variant-flow-${i}`}>{`Variant ${i + 1} flow`}</label>
            <select
              id={`variant-flow-${i}`}
              value={v.flowId ?? ''}
              onChange={(e) => set(i, { flowId: e.target.value || null })}
            >
              {flowOptions.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          {editable && variants.length > MIN_VARIANTS ? (
            <div className="field">
              <span aria-hidden="true">&nbsp;</span>
              <Button variant="ghost" onClick={() => onChange(removeVariant(variants, i))}>
                Remove variant {i + 1}
              </Button>
            </div>
          ) : null}
        </div>
      ))}
      <p className={splits.valid ? 'hint' : 'field-error'}>{splits.message}</p>
    </>
  );
}
