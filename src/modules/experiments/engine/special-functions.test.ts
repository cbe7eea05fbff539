import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chiSquareSf, erfc, normalSf, Z_975 } from './special-functions.js';

/** |actual − expected| ≤ tol · |expected|. */
function expectRelative(actual: number, expected: number, tol: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tol * Math.abs(expected));
}

describe('erfc', () => {
  // Reference values: scipy 1.17.1, scipy.special.erfc (Cephes), printed with repr().
  const reference: [number, number][] = [
    [-2, 1.9953222650189528],
    [-0.5, 1.5204998778130465],
    [0, 1.0],
    [0.1, 0.8875370839817152],
    [0.5, 0.4795001221869535],
    [1, 0.15729920705028516],
    [1.49, 0.035102135156795784], // last point of the series branch
    [1.5, 0.03389485352468927], // first point of the continued fraction
    [1.51, 0.032723251871288356],
    [2, 0.004677734981047266],
    [3, 2.2090496998585445e-5],
    [5, 1.5374597944280347e-12],
    [8, 1.1224297172982928e-29],
    [12, 1.3562611692059047e-64],
    [20, 5.395865611607901e-176],
    [26, 5.663192408856145e-296],
  ];

  it.each(reference)('erfc(%d) matches scipy to 1e-14 relative', (x, expected) => {
    expectRelative(erfc(x), expected, 1e-14);
  });

  it('is 0 past the smallest double and NaN for NaN', () => {
    expect(erfc(28)).toBe(0);
    expect(erfc(Number.POSITIVE_INFINITY)).toBe(0);
    expect(erfc(Number.NEGATIVE_INFINITY)).toBe(2);
    expect(erfc(Number.NaN)).toBeNaN();
  });

  it('is decreasing, in [0, 2], and erfc(x) + erfc(−x) = 2', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -30, max: 30, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (x, dx) => {
          const v = erfc(x);
          expect(v >= 0 && v <= 2).toBe(true);
          expect(erfc(x + dx)).toBeLessThanOrEqual(v);
          expect(Math.abs(v + erfc(-x) - 2)).toBeLessThan(1e-15 * 4);
        },
      ),
    );
  });
});

describe('normalSf', () => {
  it('matches scipy.stats.norm.sf', () => {
    expect(normalSf(0)).toBe(0.5);
    expectRelative(normalSf(1), 0.15865525393145707, 1e-14);
    expectRelative(normalSf(Z_975), 0.025, 1e-14); // Z_975 is the 97.5% quantile
    expectRelative(normalSf(2.677), 0.0037142317484787895, 1e-14);
    expectRelative(normalSf(3.2905267314919255), 0.0004999999999999451, 1e-14);
    // Far out, rounding z/√2 alone moves the result by ~z²·1e-16 relative.
    expectRelative(normalSf(6), 9.865876450376946e-10, 1e-13);
    expectRelative(normalSf(10), 7.61985302416047e-24, 1e-13);
  });
});

describe('chiSquareSf', () => {
  // Reference values: scipy 1.17.1, scipy.stats.chi2.sf(x, df); the critical values are
  // chi2.ppf(0.95, df), where the survival function is 0.05 by construction.
  const reference: [number, number, number][] = [
    [1.6, 1, 0.20590321073206466],
    [0.1, 1, 0.7518296340458492],
    [3.841458820694124, 1, 0.05],
    [10, 2, 0.006737946999085468],
    [5.991464547107979, 2, 0.05],
    [7.814727903251178, 3, 0.05],
    [12.5, 3, 0.005852662593326735],
    [1e-6, 3, 0.9999999997340385],
    [20, 4, 0.0004993992273873336],
    [30, 5, 1.4748581038443073e-5],
    [100, 9, 1.5735176303753876e-17],
    [1, 10, 0.9998278843700441],
    [50, 19, 0.0001310611647931629],
    [1000, 99, 7.229607902491268e-149],
  ];

  it.each(reference)('chiSquareSf(%d, df %d) matches scipy to 1e-13 relative', (x, df, expected) => {
    expectRelative(chiSquareSf(x, df), expected, 1e-13);
  });

  it('is 1 at x ≤ 0, in [0, 1], decreasing in x and increasing in df', () => {
    expect(chiSquareSf(0, 3)).toBe(1);
    expect(chiSquareSf(-1, 3)).toBe(1);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2000, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        (x, dx, df) => {
          const p = chiSquareSf(x, df);
          expect(p >= 0 && p <= 1).toBe(true);
          // A hair of slack: neighbouring values may round apart by an ulp or two.
          expect(chiSquareSf(x + dx, df)).toBeLessThanOrEqual(p * (1 + 1e-12));
          expect(chiSquareSf(x, df + 1)).toBeGreaterThanOrEqual(p * (1 - 1e-12));
        },
      ),
    );
  });
});
