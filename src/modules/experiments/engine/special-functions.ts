/**
 * The few special functions the experiment statistics need, written here rather than imported:
 * jstat computes erfc as 1 − erf and so loses the tail (erfc(5) off by 1.5e-5 relative, 0 from
 * 6 on), and @stdlib's accurate erfc brings 146 packages for one function. These are textbook
 * algorithms, accurate to ~1e-14 relative across the range (special-functions.test.ts checks
 * them against scipy 1.17 on a grid), with positive-term sums so no step cancels.
 */

const SQRT_PI = Math.sqrt(Math.PI);
const EPS = 1e-16;
/** Continued-fraction guard against dividing by zero (Lentz's method). */
const TINY = 1e-300;

/** The 97.5% standard normal quantile: scipy.stats.norm.ppf(0.975). */
export const Z_975 = 1.959963984540054;

/**
 * Complementary error function, erfc(x) = Q(1/2, x²) for x ≥ 0 (Numerical Recipes §6.2):
 * below 1.5 from the positive series erf(x) = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (2n+1)!!
 * (Abramowitz & Stegun 7.1.6), where 1 − erf still keeps ~14 digits; from 1.5 on from the
 * continued fraction of the upper incomplete gamma function, evaluated by modified Lentz,
 * which converges in a few dozen steps there and keeps full relative accuracy in the tail.
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  const x2 = x * x;
  if (x < 1.5) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (2 * x2) / (2 * n + 1);
      sum += term;
      if (term < sum * EPS) break;
    }
    return 1 - (2 / SQRT_PI) * Math.exp(-x2) * sum;
  }
  if (x > 27.3) return 0; // below the smallest double (erfc(27.3) ≈ 5e-326)
  // Q(a, y) = e^(−y) y^a / Γ(a) · 1/(y+1−a− 1·(1−a)/(y+3−a− 2·(2−a)/(y+5−a− …))), a = 1/2, y = x².
  let b = x2 + 0.5;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - 0.5);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return (Math.exp(-x2) * x * h) / SQRT_PI;
}

/** P(Z > z) for a standard normal Z, accurate in the far tail. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/**
 * P(X > x) for X ~ χ² with a positive integer `df`: the regularized upper incomplete gamma
 * Q(df/2, x/2), which for half-integer orders is a finite sum (Abramowitz & Stegun 26.4.4 and
 * 26.4.5): with y = x/2, even df = 2m gives Σ_{i<m} e^(−y) yⁱ / i! (a Poisson tail), odd
 * df = 2m+1 gives erfc(√y) + Σ_{i=1..m} e^(−y) y^(i−½) / Γ(i+½). Terms are summed from their
 * logarithms, so large x or df neither overflows nor underflows before the sum does.
 */
export function chiSquareSf(x: number, df: number): number {
  if (!(x > 0)) return 1;
  const y = x / 2;
  const logY = Math.log(y);
  const m = Math.floor(df / 2);
  let sum: number;
  let logTerm: number;
  let order: number;
  if (df % 2 === 0) {
    sum = 0;
    logTerm = -y; // i = 0
    order = 1; // next term multiplies by y / order
  } else {
    sum = erfc(Math.sqrt(y));
    logTerm = -y + 0.5 * logY - Math.log(SQRT_PI / 2); // i = 1: y^(1/2) / Γ(3/2)
    order = 1.5;
  }
  // m terms either way: even i = 0..m−1, odd i = 1..m.
  for (let i = 0; i < m; i++) {
    sum += Math.exp(logTerm);
    logTerm += logY - Math.log(order);
    order += 1;
  }
  return Math.min(1, sum);
}
