import { z } from 'zod';
import { chiSquareSf, erfc, normalSf, Z_975 } from './special-functions.js';

/**
 * Statistics of a conversion experiment: each non-control variant against the control (the
 * first variant), plus a sample-ratio check over all variants. Pure; every number returned is
 * finite or null, whatever the counts (docs/experiments-statistics.md explains each one).
 */

/** Two-sided level of every interval and test here (95%). */
export const ALPHA = 0.05;
/** The total sample size (both arms) where the sequential interval is tightest; GrowthBook's default. */
export const SEQUENTIAL_TUNING_PARAMETER = 5000;
/** Sample-ratio mismatch is flagged below this p-value, the industry's usual bar. */
export const SRM_P_THRESHOLD = 0.001;
/** The SRM test waits until every variant has this many participants. */
export const SRM_MIN_PARTICIPANTS = 8;
/** Above this many participants in the smaller arm, P(beat) uses the normal approximation (see there). */
const EXACT_P_BEAT_LIMIT = 1e9;

/** A count as SQL hands it over: node-postgres returns count(*) (a bigint) as a string. */
export type Count = number | bigint | string;

export interface ArmCounts {
  participants: Count;
  conversions: Count;
}

interface Arm {
  n: number;
  x: number;
  rate: number;
}

/** A whole, non-negative count at most 2^53; anything unreadable counts as 0. */
function wholeCount(count: Count): number {
  const v = typeof count === 'number' ? count : Number(count);
  return Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), Number.MAX_SAFE_INTEGER) : 0;
}

/** Counts made safe: whole, non-negative, at most 2^53, conversions ≤ participants. */
function toArm(c: ArmCounts): Arm {
  const n = wholeCount(c.participants);
  const x = Math.min(wholeCount(c.conversions), n);
  return { n, x, rate: n > 0 ? x / n : 0 };
}

/**
 * Bernoulli variance p(1 − p) of an arm for its standard error. An arm with no or every
 * conversion would claim zero uncertainty (and a 1-vs-0 comparison infinite significance), so
 * there p is Laplace's (x + 1)/(n + 2); elsewhere the observed rate, as textbooks have it.
 */
function rateVariance(a: Arm): number {
  const p = a.x === 0 || a.x === a.n ? (a.x + 1) / (a.n + 2) : a.rate;
  return p * (1 - p);
}

/**
 * Two-sided p-value of the pooled two-proportion z-test, no continuity correction:
 * z = (p_v − p_c) / √(p̄(1 − p̄)(1/n_v + 1/n_c)), p̄ the pooled rate, p = 2·P(Z > |z|).
 * Null while an arm has no participants; 1 when the pooled rate is 0 or 1 (no variation).
 */
export function twoProportionPValue(control: ArmCounts, variant: ArmCounts): number | null {
  const c = toArm(control);
  const v = toArm(variant);
  if (c.n === 0 || v.n === 0) return null;
  const pooled = (c.x + v.x) / (c.n + v.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / c.n + 1 / v.n));
  if (!(se > 0)) return 1;
  return Math.min(1, erfc(Math.abs(v.rate - c.rate) / se / Math.SQRT2));
}

export interface Lift {
  estimate: number;
  ciLow: number;
  ciHigh: number;
}

/**
 * Relative lift (p_v − p_c)/p_c with a 95% interval by the delta method on the ratio, as
 * GrowthBook's frequentist engine does: Var ≈ σ_v²/(n_v p_c²) + p_v² σ_c²/(n_c p_c⁴), interval
 * estimate ± z₀.₉₇₅·√Var. The lower end is cut at −1 (no rate goes below 0, so the cut loses
 * no coverage). Null while an arm has no participants or the control rate is 0.
 */
export function relativeLift(control: ArmCounts, variant: ArmCounts): Lift | null {
  const c = toArm(control);
  const v = toArm(variant);
  if (c.n === 0 || v.n === 0 || c.rate === 0) return null;
  const estimate = v.rate / c.rate - 1;
  const variance =
    rateVariance(v) / (v.n * c.rate ** 2) + (v.rate ** 2 * rateVariance(c)) / (c.n * c.rate ** 4);
  const half = Z_975 * Math.sqrt(variance);
  return { estimate, ciLow: Math.max(-1, estimate - half), ciHigh: estimate + half };
}

/**
 * P(p_v > p_c) with independent Beta(1 + conversions, 1 + failures) posteriors, exactly.
 *
 * For whole a, b: 1 − I_t(a, b) = P(Binomial(a + b − 1, t) ≤ a − 1), so with a = 1 + x_v,
 * b = 1 + n_v − x_v and p_c ~ Beta(α, β) = Beta(1 + x_c, 1 + n_c − x_c) drawn for t,
 *   P(p_v > p_c) = P(K ≤ x_v),  K ~ BetaBinomial(n_v + 1, α, β).
 * That pmf is log-concave (α, β ≥ 1), so the sum starts at its mode (found by bisection on the
 * ratio of neighbouring terms) and walks outward by that ratio, stopping where terms fall
 * below 1e-20 of the mode: O(√n) steps, no log-gamma, and the result is the ratio of two sums,
 * so no normalising constant is needed. When the variant is the larger arm the roles are
 * swapped (P = 1 − P(p_c > p_v), computed as the other sum, not as 1 − …), which keeps the walk
 * at O(√(smaller n)). Null while an arm has no participants.
 */
export function probabilityToBeatControl(control: ArmCounts, variant: ArmCounts): number | null {
  const c = toArm(control);
  const v = toArm(variant);
  if (c.n === 0 || v.n === 0) return null;
  if (Math.min(c.n, v.n) > EXACT_P_BEAT_LIMIT) return normalBeat(c, v);
  if (v.n <= c.n) return betaBinomialCdfRatio(v.n + 1, 1 + c.x, 1 + c.n - c.x, v.x).below;
  return betaBinomialCdfRatio(c.n + 1, 1 + v.x, 1 + v.n - v.x, c.x).above;
}

/**
 * P(K ≤ k) and P(K > k) for K ~ BetaBinomial(trials, α, β) with α, β ≥ 1, each computed as its
 * own sum over the log-concave pmf (so a tiny tail keeps its relative precision).
 */
function betaBinomialCdfRatio(
  trials: number,
  alpha: number,
  beta: number,
  k: number,
): { below: number; above: number } {
  // pmf(j + 1) / pmf(j); non-increasing in j because α, β ≥ 1.
  const ratio = (j: number) => ((trials - j) * (j + alpha)) / ((j + 1) * (trials - j - 1 + beta));
  let lo = 0;
  let hi = trials; // the mode is the first j with ratio(j) ≤ 1, or `trials`
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ratio(mid) <= 1) hi = mid;
    else lo = mid + 1;
  }
  const mode = lo;
  const cutoff = 1e-20;
  let below = 0;
  let above = 0;
  const add = (j: number, term: number) => {
    if (j <= k) below += term;
    else above += term;
  };
  add(mode, 1);
  let term = 1;
  for (let j = mode - 1; j >= 0; j--) {
    term /= ratio(j);
    if (term < cutoff) break;
    add(j, term);
  }
  term = 1;
  for (let j = mode + 1; j <= trials; j++) {
    term *= ratio(j - 1);
    if (term < cutoff) break;
    add(j, term);
  }
  const total = below + above;
  return { below: below / total, above: above / total };
}

/**
 * Beyond a billion participants per arm the Beta posteriors are normal to well under 1e-4, and
 * the exact walk would take seconds: P ≈ P(Z < (μ_v − μ_c)/√(σ_v² + σ_c²)) with the Beta moments.
 */
function normalBeat(c: Arm, v: Arm): number {
  const moments = (a: Arm) => {
    const alpha = 1 + a.x;
    const beta = 1 + a.n - a.x;
    const s = alpha + beta;
    return { mean: alpha / s, variance: (alpha * beta) / (s * s * (s + 1)) };
  };
  const mc = moments(c);
  const mv = moments(v);
  return normalSf((mc.mean - mv.mean) / Math.sqrt(mc.variance + mv.variance));
}

export interface SequentialInterval {
  ciLow: number;
  ciHigh: number;
  significant: boolean;
}

/**
 * An always-valid 95% confidence sequence on the difference p_v − p_c: the asymptotic
 * confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central
 * limit theory and asymptotic confidence sequences" (Annals of Statistics, 2024; arXiv
 * 2103.06476, Theorem 2.2), in the form GrowthBook's gbstats uses:
 *   d̂ ± σ̂ · √( 2(nρ² + 1) / (n²ρ²) · ln(√(nρ² + 1) / α) ),
 * with n = n_v + n_c, σ̂² = n·SE² where SE² = σ_v²/n_v + σ_c²/n_c, and
 *   ρ² = (−2 ln α + ln(−2 ln α + 1)) / N   (eq. 161; N the tuning parameter, default 5000),
 * which makes the sequence tightest around N users. With probability ≥ 95% (asymptotically)
 * it holds the true difference at every n at once, so looking daily does not inflate false
 * positives. Ends are cut to [−1, 1], the range of a difference of rates. `significant` when
 * the interval excludes 0. Null while an arm has no participants.
 */
export function sequentialInterval(
  control: ArmCounts,
  variant: ArmCounts,
  tuningParameter = SEQUENTIAL_TUNING_PARAMETER,
): SequentialInterval | null {
  const c = toArm(control);
  const v = toArm(variant);
  if (c.n === 0 || v.n === 0) return null;
  const tuning =
    Number.isFinite(tuningParameter) && tuningParameter > 0 ? tuningParameter : SEQUENTIAL_TUNING_PARAMETER;
  const logAlpha = Math.log(ALPHA);
  const rho2 = (-2 * logAlpha + Math.log(-2 * logAlpha + 1)) / tuning;
  const n = c.n + v.n;
  const nr2 = n * rho2;
  const se = Math.sqrt(rateVariance(v) / v.n + rateVariance(c) / c.n);
  // σ̂·√(2(nρ²+1)/(n²ρ²)·…) with σ̂ = SE·√n, simplified to SE·√(2(nρ²+1)/(nρ²)·…).
  const half = se * Math.sqrt(((2 * (nr2 + 1)) / nr2) * Math.log(Math.sqrt(nr2 + 1) / ALPHA));
  const diff = v.rate - c.rate;
  const ciLow = Math.max(-1, diff - half);
  const ciHigh = Math.min(1, diff + half);
  return { ciLow, ciHigh, significant: ciLow > 0 || ciHigh < 0 };
}

export interface SampleRatioMismatch {
  pValue: number | null;
  mismatch: boolean;
}

/**
 * Sample-ratio mismatch: Pearson's chi-square goodness of fit of the participant counts to the
 * split percentages (normalised by their sum), k − 1 degrees of freedom. Judged only once
 * there are 2+ variants, each with at least SRM_MIN_PARTICIPANTS (the chi-square approximation
 * needs them), else { pValue: null, mismatch: false }. A variant with participants but a 0%
 * split is an outright mismatch (p = 0).
 */
export function sampleRatioMismatch(
  variants: readonly { participants: Count; splitPercentage: number }[],
): SampleRatioMismatch {
  const none = { pValue: null, mismatch: false };
  if (variants.length < 2) return none;
  const counts = variants.map((v) => wholeCount(v.participants));
  if (counts.some((n) => n < SRM_MIN_PARTICIPANTS)) return none;
  const weights = variants.map((v) =>
    Number.isFinite(v.splitPercentage) && v.splitPercentage > 0 ? v.splitPercentage : 0,
  );
  const totalWeight = weights.reduce((s, w) => s + w, 0);
  if (!(totalWeight > 0)) return none;
  const total = counts.reduce((s, n) => s + n, 0);
  let chi2 = 0;
  for (let i = 0; i < counts.length; i++) {
    const expected = (total * weights[i]!) / totalWeight;
    if (expected === 0) return { pValue: 0, mismatch: true };
    chi2 += (counts[i]! - expected) ** 2 / expected;
  }
  const pValue = Number.isFinite(chi2) ? chiSquareSf(chi2, counts.length - 1) : 0;
  return { pValue, mismatch: pValue < SRM_P_THRESHOLD };
}

export interface ExperimentVariantInput {
  id: string;
  name: string;
  splitPercentage: number;
  participants: Count;
  conversions: Count;
}

export interface AnalysisOptions {
  sequentialTuningParameter?: number;
}

const liftSchema = z.object({ estimate: z.number(), ciLow: z.number(), ciHigh: z.number() });
const sequentialSchema = z.object({ ciLow: z.number(), ciHigh: z.number(), significant: z.boolean() });

/** One variant's results; zod 4 numbers are finite, so parsing also proves "no NaN, no Infinity". */
export const variantAnalysisSchema = z.object({
  variantId: z.string(),
  variantName: z.string(),
  sampleSize: z.number().int().nonnegative(),
  conversions: z.number().int().nonnegative(),
  conversionRate: z.number().min(0).max(1),
  isControl: z.boolean(),
  lift: liftSchema.nullable(),
  pValue: z.number().min(0).max(1).nullable(),
  probabilityToBeatControl: z.number().min(0).max(1).nullable(),
  sequential: sequentialSchema.nullable(),
});
export type VariantAnalysis = z.infer<typeof variantAnalysisSchema>;

export const experimentAnalysisSchema = z.object({
  variants: z.array(variantAnalysisSchema),
  srm: z.object({ pValue: z.number().min(0).max(1).nullable(), mismatch: z.boolean() }),
});
export type ExperimentAnalysis = z.infer<typeof experimentAnalysisSchema>;

/**
 * The full analysis: per variant its counts and rate, and for each non-control variant its
 * comparison with the control (the first variant); the control's comparisons are null, as are
 * a variant's while it or the control has no participants.
 */
export function analyzeExperiment(
  variants: readonly ExperimentVariantInput[],
  options: AnalysisOptions = {},
): ExperimentAnalysis {
  const control = variants[0];
  return {
    variants: variants.map((variant, i) => {
      const arm = toArm(variant);
      const isControl = i === 0;
      const compare = !isControl && control !== undefined;
      return {
        variantId: variant.id,
        variantName: variant.name,
        sampleSize: arm.n,
        conversions: arm.x,
        conversionRate: arm.rate,
        isControl,
        lift: compare ? relativeLift(control, variant) : null,
        pValue: compare ? twoProportionPValue(control, variant) : null,
        probabilityToBeatControl: compare ? probabilityToBeatControl(control, variant) : null,
        sequential: compare ? sequentialInterval(control, variant, options.sequentialTuningParameter) : null,
      };
    }),
    srm: sampleRatioMismatch(variants),
  };
}
