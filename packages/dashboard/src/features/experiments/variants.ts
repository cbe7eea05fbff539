import type { Schemas } from '../../app/api';

/**
 * An experiment's variants as the form edits them, and the split rule: every participant falls in
 * exactly one variant, so the splits must total 100%. The first variant is the control; a variant
 * without a flow is a holdout.
 */

export type Variant = { id?: string; name: string; splitPercentage: number; flowId: string | null };

export const MIN_VARIANTS = 2;

/** The variants of a saved experiment, or Control and Variant B at 50/50 for a new one. */
export const variantsOf = (experiment: Schemas['Experiment'] | undefined): Variant[] =>
  experiment?.variants.map((v) => ({
    id: v.id,
    name: v.name,
    splitPercentage: v.splitPercentage,
    flowId: v.flowId,
  })) ?? [
    { name: 'Control', splitPercentage: 50, flowId: null },
    { name: 'Variant B', splitPercentage: 50, flowId: null },
  ];

/** The splits' total (a split that is not a number counts as 0). */
export const splitTotal = (variants: readonly Variant[]) =>
  variants.reduce((s, v) => s + (Number(v.splitPercentage) || 0), 0);

/** Whether the splits total 100%, and the line under the variants that says so (or says what is wrong). */
export function validateSplits(variants: readonly Variant[]): {
  total: number;
  valid: boolean;
  message: string;
} {
  const total = splitTotal(variants);
  return { total, valid: total === 100, message: `Splits total ${total}% (they must total 100%).` };
}

export const setVariant = (variants: readonly Variant[], i: number, patch: Partial<Variant>): Variant[] =>
  variants.map((v, j) => (j === i ? { ...v, ...patch } : v));
/** A new variant at 0% named by the next letter (`Variant C`), no flow yet. */
export const addVariant = (variants: readonly Variant[]): Variant[] => [
  ...variants,
  { name: `Variant ${String.fromCharCode(65 + variants.length)}`, splitPercentage: 0, flowId: null },
];
/** A variant removed (never below two: a control and one to compare). */
export const removeVariant = (variants: readonly Variant[], i: number): Variant[] =>
  variants.length > MIN_VARIANTS ? variants.filter((_, j) => j !== i) : [...variants];
