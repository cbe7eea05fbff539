import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ArmCounts,
  analyzeExperiment,
  experimentAnalysisSchema,
  probabilityToBeatControl,
  relativeLift,
  sampleRatioMismatch,
  sequentialInterval,
  twoProportionPValue,
} from './stats.js';

const arm = (participants: number, conversions: number): ArmCounts => ({ participants, conversions });

function expectClose(actual: number | null | undefined, expected: number, tol: number) {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(tol);
}

/** Counts as the database could hold them, plus the shapes that break naive formulas. */
const counts: fc.Arbitrary<ArmCounts> = fc.oneof(
  fc.integer({ min: 0, max: 5_000_000 }).chain((n) =>
    fc
      .oneof(
        fc.integer({ min: 0, max: n }),
        fc.constant(0), // nobody converted
        fc.constant(n), // everybody converted
      )
      .map((x) => arm(n, x)),
  ),
  fc.integer({ min: 0, max: 30 }).chain((n) => fc.integer({ min: 0, max: n }).map((x) => arm(n, x))),
  fc.record({
    participants: fc.oneof(fc.double(), fc.integer({ min: -10, max: 2e12 })),
    conversions: fc.oneof(fc.double(), fc.integer({ min: -10, max: 2e12 })),
  }),
);

/** The counts as the module reads them (the arbitraries only make numbers). */
function norm(c: ArmCounts) {
  const whole = (count: ArmCounts['participants']) => {
    const v = Number(count);
    return Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), Number.MAX_SAFE_INTEGER) : 0;
  };
  const n = whole(c.participants);
  const x = Math.min(whole(c.conversions), n);
  return { n, x, rate: n > 0 ? x / n : 0 };
}

// Unless stated otherwise, reference values were computed independently with scipy 1.17.1 /
// numpy in Python, by the formulas named in each test (scipy routines where one exists).

describe('twoProportionPValue (pooled z-test, two-sided, no continuity correction)', () => {
  it('textbook: 200/1000 vs 250/1000 gives |z| ≈ 2.677, p ≈ 0.00742', () => {
    // Equal to scipy.stats.chi2_contingency([[200, 800], [250, 750]], correction=False): the
    // uncorrected 2×2 Pearson chi-square is the pooled z statistic squared.
    expectClose(twoProportionPValue(arm(1000, 200), arm(1000, 250)), 0.007419649261025687, 1e-14);
  });

  it('matches the uncorrected 2×2 chi-square on uneven arms', () => {
    // chi2_contingency([[30, 570], [50, 600]], correction=False) → 0.05201546797470307
    expectClose(twoProportionPValue(arm(600, 30), arm(650, 50)), 0.05201546797470307, 1e-13);
    // chi2_contingency([[1, 1], [0, 2]], correction=False) → 0.24821307898992026
    expectClose(twoProportionPValue(arm(2, 1), arm(2, 0)), 0.24821307898992026, 1e-13);
  });

  it('is 1 with no variation at all, and null while an arm is empty', () => {
    expect(twoProportionPValue(arm(100, 0), arm(50, 0))).toBe(1);
    expect(twoProportionPValue(arm(100, 100), arm(50, 50))).toBe(1);
    expect(twoProportionPValue(arm(0, 0), arm(50, 5))).toBeNull();
    expect(twoProportionPValue(arm(50, 5), arm(0, 0))).toBeNull();
  });
});

describe('relativeLift (delta method on the ratio)', () => {
  it('200/1000 vs 250/1000: +25%, 95% CI [4.50%, 45.50%]', () => {
    // Delta method by hand in Python: Var = p_v(1−p_v)/(n_v p_c²) + p_v² p_c(1−p_c)/(n_c p_c⁴),
    // half-width norm.ppf(0.975)·√Var.
    const lift = relativeLift(arm(1000, 200), arm(1000, 250))!;
    expectClose(lift.estimate, 0.25, 1e-14);
    expectClose(lift.ciLow, 0.04502206008611073, 1e-12);
    expectClose(lift.ciHigh, 0.45497793991388924, 1e-12);
    const lift2 = relativeLift(arm(1000, 100), arm(1000, 120))!;
    expectClose(lift2.ciLow, -0.10058461614448239, 1e-12);
    expectClose(lift2.ciHigh, 0.5005846161444822, 1e-12);
  });

  it('is null when the control rate is 0 or an arm is empty', () => {
    expect(relativeLift(arm(100, 0), arm(100, 10))).toBeNull();
    expect(relativeLift(arm(0, 0), arm(100, 10))).toBeNull();
    expect(relativeLift(arm(100, 10), arm(0, 0))).toBeNull();
  });

  it('a variant with no conversions has lift −100% and an interval of positive width', () => {
    const lift = relativeLift(arm(100, 10), arm(100, 0))!;
    expect(lift.estimate).toBe(-1);
    expect(lift.ciLow).toBe(-1);
    expect(lift.ciHigh).toBeGreaterThan(-1);
  });
});

describe('probabilityToBeatControl (exact, Beta(1 + conversions, 1 + failures) posteriors)', () => {
  // References: scipy.integrate.quad of beta(1+x_c, 1+n_c−x_c).pdf(t) · beta(1+x_v, 1+n_v−x_v).sf(t)
  // over [0, 1] (epsrel 1e-13), an integration independent of the beta-binomial sum used here.
  const cases: [ArmCounts, ArmCounts, number][] = [
    [arm(1000, 100), arm(1000, 120), 0.9231834389735596], // the brief's check: ≈ 0.923
    [arm(50, 3), arm(70, 9), 0.8762538745433325],
    [arm(10, 0), arm(12, 1), 0.717391304347826],
    [arm(1, 1), arm(1, 0), 1 / 6], // Beta(1,2) beats Beta(2,1) with probability 1/6, by hand
    [arm(200_000, 20_000), arm(100, 12), 0.7918525361519437],
    [arm(100, 12), arm(200_000, 20_000), 0.2081474638480491], // the larger arm is the variant
    [arm(5000, 4999), arm(3000, 3000), 0.6094433459501699],
  ];

  it.each(cases)('%j vs %j', (control, variant, expected) => {
    expectClose(probabilityToBeatControl(control, variant), expected, 1e-12);
  });

  it('is ½ for identical arms, null while an arm is empty', () => {
    expectClose(probabilityToBeatControl(arm(1000, 100), arm(1000, 100)), 0.5, 1e-12);
    expectClose(probabilityToBeatControl(arm(10, 0), arm(10, 0)), 0.5, 1e-12);
    expect(probabilityToBeatControl(arm(0, 0), arm(10, 1))).toBeNull();
    expect(probabilityToBeatControl(arm(10, 1), arm(0, 0))).toBeNull();
  });

  it('stays accurate and fast at 1,000,000 participants and 300,000 conversions', () => {
    const start = performance.now();
    const same = probabilityToBeatControl(arm(1_000_000, 300_000), arm(1_000_000, 300_000))!;
    const better = probabilityToBeatControl(arm(1_000_000, 300_000), arm(1_000_000, 301_500))!;
    const elapsed = performance.now() - start;
    expectClose(same, 0.5, 1e-10);
    // Normal approximation of two Betas this large is good to ~1e-6: Φ(Δμ / √(σ_c² + σ_v²)).
    expectClose(better, 0.989635958699133, 1e-5);
    expect(elapsed).toBeLessThan(50);
  });

  it('keeps a tiny tail instead of rounding it into 1 − p', () => {
    const p = probabilityToBeatControl(arm(10_000, 2000), arm(10_000, 1500))!;
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-15);
  });
});

describe('sequentialInterval (asymptotic confidence sequence on p_v − p_c)', () => {
  it('reproduces the GrowthBook gbstats form of Waudby-Smith et al.', () => {
    // Python: ρ = √((−2 ln α + ln(−2 ln α + 1))/5000), n = n_c + n_v, s² = SE²·n,
    // half-width = √s²·√(2(nρ²+1)·ln(√(nρ²+1)/α)/(nρ)²).
    const s = sequentialInterval(arm(1000, 200), arm(1000, 250))!;
    expectClose(s.ciLow, -0.008231465250502758, 1e-12);
    expectClose(s.ciHigh, 0.10823146525050273, 1e-12);
    expect(s.significant).toBe(false); // while the fixed-horizon p-value is 0.0074
    const t = sequentialInterval(arm(10_000, 2000), arm(10_000, 2150))!;
    expectClose(t.ciLow, -0.002930530008376151, 1e-12);
    expectClose(t.ciHigh, 0.03293053000837612, 1e-12);
  });

  it('is significant once the evidence is strong, either way', () => {
    expect(sequentialInterval(arm(5000, 500), arm(5000, 650))!.significant).toBe(true);
    const worse = sequentialInterval(arm(5000, 650), arm(5000, 500))!;
    expect(worse.significant).toBe(true);
    expect(worse.ciHigh).toBeLessThan(0);
  });

  it('does not call 1 conversion of 1 against 0 of 1 significant', () => {
    const s = sequentialInterval(arm(1, 0), arm(1, 1))!;
    expect(s.significant).toBe(false);
    expect(s.ciLow).toBe(-1);
    expect(s.ciHigh).toBe(1);
  });

  it('is always wider than the fixed-horizon 95% interval', () => {
    fc.assert(
      fc.property(counts, counts, (c, v) => {
        const s = sequentialInterval(c, v);
        if (s === null || s.ciLow === -1 || s.ciHigh === 1) return;
        // The same standard error, Laplace's rate standing in for 0% and 100%.
        const varOf = ({ n, x, rate }: ReturnType<typeof norm>) => {
          const q = x === 0 || x === n ? (x + 1) / (n + 2) : rate;
          return (q * (1 - q)) / n;
        };
        const se = Math.sqrt(varOf(norm(c)) + varOf(norm(v)));
        expect((s.ciHigh - s.ciLow) / 2).toBeGreaterThan(1.959963984540054 * se);
      }),
    );
  });

  it('null while an arm is empty; a bad tuning parameter falls back to 5000', () => {
    expect(sequentialInterval(arm(0, 0), arm(10, 1))).toBeNull();
    expect(sequentialInterval(arm(1000, 200), arm(1000, 250), Number.NaN)).toEqual(
      sequentialInterval(arm(1000, 200), arm(1000, 250)),
    );
    expect(sequentialInterval(arm(1000, 200), arm(1000, 250), -1)).toEqual(
      sequentialInterval(arm(1000, 200), arm(1000, 250)),
    );
  });
});

describe('sampleRatioMismatch (chi-square goodness of fit)', () => {
  const srm = (...pairs: [number, number][]) =>
    sampleRatioMismatch(pairs.map(([participants, splitPercentage]) => ({ participants, splitPercentage })));

  it('textbook: 520 vs 480 at 50/50 gives p ≈ 0.2059, no mismatch', () => {
    // scipy.stats.chisquare([520, 480], [500, 500]) → statistic 1.6, pvalue 0.20590321073206466
    const r = srm([520, 50], [480, 50]);
    expectClose(r.pValue, 0.20590321073206466, 1e-13);
    expect(r.mismatch).toBe(false);
  });

  it('uneven and fractional splits', () => {
    // chisquare([821, 179], [800, 200]) → 0.09687507502627439
    expectClose(srm([821, 80], [179, 20]).pValue, 0.09687507502627439, 1e-13);
    // chisquare([3400, 3300, 3300], [3333, 3333, 3334]) → 0.3641647130554156
    expectClose(srm([3400, 33.33], [3300, 33.33], [3300, 33.34]).pValue, 0.3641647130554156, 1e-13);
  });

  it('flags p < 0.001', () => {
    // chisquare([5230, 4770]) → 4.224909405005696e-06
    const r = srm([5230, 50], [4770, 50]);
    expectClose(r.pValue, 4.224909405005696e-6, 1e-18);
    expect(r.mismatch).toBe(true);
  });

  it('splits not summing to 100 are normalised', () => {
    expect(srm([520, 1], [480, 1])).toEqual(srm([520, 50], [480, 50]));
  });

  it('waits for 8 participants in every variant', () => {
    expect(srm([1000, 50], [7, 50])).toEqual({ pValue: null, mismatch: false });
    expect(srm([8, 50], [1000, 50]).mismatch).toBe(true);
  });

  it('a variant with participants but a 0% split is a mismatch; degenerate inputs are not judged', () => {
    expect(srm([100, 100], [10, 0])).toEqual({ pValue: 0, mismatch: true });
    expect(srm([100, 100])).toEqual({ pValue: null, mismatch: false });
    expect(srm([100, 0], [100, 0])).toEqual({ pValue: null, mismatch: false });
    expect(sampleRatioMismatch([])).toEqual({ pValue: null, mismatch: false });
  });
});

describe('analyzeExperiment', () => {
  const v = (id: string, participants: number, conversions: number, splitPercentage = 50) => ({
    id,
    name: `Variant ${id}`,
    splitPercentage,
    participants,
    conversions,
  });

  it('reports counts and rates, the control first, and each comparison against it', () => {
    const result = analyzeExperiment([v('a', 1000, 200), v('b', 1000, 250)]);
    expect(result.variants[0]).toEqual({
      variantId: 'a',
      variantName: 'Variant a',
      sampleSize: 1000,
      conversions: 200,
      conversionRate: 0.2,
      isControl: true,
      lift: null,
      pValue: null,
      probabilityToBeatControl: null,
      sequential: null,
    });
    const b = result.variants[1]!;
    expect(b).toMatchObject({ variantId: 'b', sampleSize: 1000, conversions: 250, conversionRate: 0.25 });
    expect(b.isControl).toBe(false);
    expectClose(b.pValue, 0.007419649261025687, 1e-14);
    expectClose(b.lift?.estimate, 0.25, 1e-14);
    expect(b.probabilityToBeatControl).toBeGreaterThan(0.99);
    expect(b.sequential?.significant).toBe(false);
    expectClose(result.srm.pValue, 1, 1e-15);
    expect(experimentAnalysisSchema.parse(result)).toEqual(result);
  });

  it('nulls (present, not omitted) while the control or the variant has no participants', () => {
    const nulls = { lift: null, pValue: null, probabilityToBeatControl: null, sequential: null };
    const noControl = analyzeExperiment([v('a', 0, 0), v('b', 100, 10)]);
    expect(noControl.variants[1]).toMatchObject({ ...nulls, conversionRate: 0.1 });
    const noVariant = analyzeExperiment([v('a', 100, 10), v('b', 0, 0), v('c', 100, 12)]);
    expect(noVariant.variants[1]).toMatchObject({ ...nulls, conversionRate: 0 });
    expect(Object.keys(noVariant.variants[1]!)).toEqual(expect.arrayContaining(Object.keys(nulls)));
    expect(noVariant.variants[2]!.pValue).not.toBeNull();
    expect(noVariant.srm).toEqual({ pValue: null, mismatch: false });
  });

  it('a control rate of 0 makes only the lift null', () => {
    const r = analyzeExperiment([v('a', 100, 0), v('b', 100, 5)]).variants[1]!;
    expect(r.lift).toBeNull();
    expect(r.pValue).not.toBeNull();
    expect(r.probabilityToBeatControl).not.toBeNull();
    expect(r.sequential).not.toBeNull();
  });

  it('treats bad counts defensively', () => {
    const r = analyzeExperiment([
      v('a', -5, 3),
      v('b', 10.7, 99),
      v('c', Number.NaN, Number.POSITIVE_INFINITY),
      v('d', Number.POSITIVE_INFINITY, 1),
      v('e', 1e300, 5),
    ]);
    expect(r.variants.map((x) => [x.sampleSize, x.conversions])).toEqual([
      [0, 0],
      [10, 10],
      [0, 0],
      [0, 0],
      [Number.MAX_SAFE_INTEGER, 5],
    ]);
    expect(experimentAnalysisSchema.parse(r)).toEqual(r);
  });

  it('reads counts that SQL returns as strings or bigints', () => {
    const fromSql = analyzeExperiment([
      { id: 'a', name: 'Variant a', splitPercentage: 50, participants: '1000', conversions: 200n },
      { id: 'b', name: 'Variant b', splitPercentage: 50, participants: 1000n, conversions: '250' },
    ]);
    expect(fromSql).toEqual(analyzeExperiment([v('a', 1000, 200), v('b', 1000, 250)]));
    expect(
      analyzeExperiment([v('a', 10, 1), { ...v('b', 0, 0), participants: 'many' }]).variants[1]!.sampleSize,
    ).toBe(0);
  });

  it('no variants, or only the control', () => {
    expect(analyzeExperiment([])).toEqual({ variants: [], srm: { pValue: null, mismatch: false } });
    expect(analyzeExperiment([v('a', 10, 1)]).variants[0]!.isControl).toBe(true);
  });

  it('the schema rejects non-finite numbers, so parsing proves there are none', () => {
    const result = analyzeExperiment([v('a', 1000, 200), v('b', 1000, 250)]);
    const broken = structuredClone(result);
    broken.variants[1]!.lift!.ciHigh = Number.POSITIVE_INFINITY;
    expect(experimentAnalysisSchema.safeParse(broken).success).toBe(false);
    broken.variants[1]!.lift!.ciHigh = Number.NaN;
    expect(experimentAnalysisSchema.safeParse(broken).success).toBe(false);
  });
});

describe('properties', () => {
  it('every number is finite or null, p-values and probabilities in [0, 1]', () => {
    fc.assert(
      fc.property(fc.array(counts, { minLength: 1, maxLength: 4 }), (arms) => {
        const result = analyzeExperiment(
          arms.map((a, i) => ({ id: `v${i}`, name: `v${i}`, splitPercentage: 100 / arms.length, ...a })),
        );
        experimentAnalysisSchema.parse(result); // finite numbers, p and P(beat) within [0, 1]
      }),
      { numRuns: 300 },
    );
  });

  it('intervals contain their estimates', () => {
    fc.assert(
      fc.property(counts, counts, (c, v) => {
        const lift = relativeLift(c, v);
        if (lift) expect(lift.ciLow <= lift.estimate && lift.estimate <= lift.ciHigh).toBe(true);
        const s = sequentialInterval(c, v);
        if (s) {
          const diff = norm(v).rate - norm(c).rate;
          expect(s.ciLow <= diff && diff <= s.ciHigh).toBe(true);
          expect(s.significant).toBe(s.ciLow > 0 || s.ciHigh < 0);
        }
      }),
    );
  });

  it('swapping the arms flips the lift sign, mirrors the sequential interval, keeps p, and gives 1 − P(beat)', () => {
    fc.assert(
      fc.property(counts, counts, (c, v) => {
        const forward = relativeLift(c, v);
        const backward = relativeLift(v, c);
        if (forward && backward) expect(Math.sign(forward.estimate) + Math.sign(backward.estimate)).toBe(0);
        const s = sequentialInterval(c, v);
        const r = sequentialInterval(v, c);
        if (s && r) {
          expect(r.ciLow).toBeCloseTo(-s.ciHigh, 12);
          expect(r.ciHigh).toBeCloseTo(-s.ciLow, 12);
          expect(r.significant).toBe(s.significant);
        }
        const p = twoProportionPValue(c, v);
        if (p !== null) expect(twoProportionPValue(v, c)).toBeCloseTo(p, 14);
        const beat = probabilityToBeatControl(c, v);
        if (beat !== null) expect(beat + probabilityToBeatControl(v, c)!).toBeCloseTo(1, 12);
      }),
      { numRuns: 300 },
    );
  });

  it('one more conversion for the variant never lowers P(beat)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 100_000 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }))),
        fc
          .integer({ min: 1, max: 100_000 })
          .chain((n) => fc.integer({ min: 0, max: n }).map((x) => arm(n, x))),
        ([n, x], c) => {
          const before = probabilityToBeatControl(c, arm(n, x))!;
          const after = probabilityToBeatControl(c, arm(n, x + 1))!;
          expect(after).toBeGreaterThanOrEqual(before - 1e-12);
        },
      ),
    );
  });
});

// ---- Peeking: A/A simulation ----

/** mulberry32: a small seeded PRNG, good enough for Bernoulli draws in a test. */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('peeking at an A/A test', () => {
  it('the sequential interval keeps false positives ≤ 5% over 20 looks; the fixed p-value does not', () => {
    const random = mulberry32(20240515);
    const experiments = 1000;
    const looks = 20;
    const usersPerArmPerLook = 100;
    const rate = 0.1;
    let sequentialFalsePositives = 0;
    let fixedFalsePositives = 0;
    let finalLookFixedFalsePositives = 0;
    for (let e = 0; e < experiments; e++) {
      const c = { participants: 0, conversions: 0 };
      const v = { participants: 0, conversions: 0 };
      let sequentialHit = false;
      let fixedHit = false;
      for (let look = 1; look <= looks; look++) {
        for (let u = 0; u < usersPerArmPerLook; u++) {
          if (random() < rate) c.conversions++;
          if (random() < rate) v.conversions++;
        }
        c.participants += usersPerArmPerLook;
        v.participants += usersPerArmPerLook;
        if (sequentialInterval(c, v)!.significant) sequentialHit = true;
        const p = twoProportionPValue(c, v)!;
        if (p < 0.05) fixedHit = true;
        if (look === looks && p < 0.05) finalLookFixedFalsePositives++;
      }
      if (sequentialHit) sequentialFalsePositives++;
      if (fixedHit) fixedFalsePositives++;
    }
    const sequentialRate = sequentialFalsePositives / experiments;
    const fixedRate = fixedFalsePositives / experiments;
    console.log(
      `A/A, ${experiments} experiments × ${looks} looks (every ${usersPerArmPerLook} users per arm up to ` +
        `${looks * usersPerArmPerLook}, true rate ${rate}): false positives — sequential interval ` +
        `${(sequentialRate * 100).toFixed(1)}%, fixed-horizon p < 0.05 at any look ${(fixedRate * 100).toFixed(1)}% ` +
        `(at the last look only: ${((finalLookFixedFalsePositives / experiments) * 100).toFixed(1)}%)`,
    );
    expect(sequentialRate).toBeLessThanOrEqual(0.05);
    // The reason the sequential interval exists: peeking inflates the fixed-horizon test well past 5%.
    expect(fixedRate).toBeGreaterThan(0.1);
  });
});
