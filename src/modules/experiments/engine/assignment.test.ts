import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignVariant,
  BUCKETS,
  bucketOf,
  murmur3,
  type SplitVariant,
  variantAtBucket,
} from './assignment.js';

const bytes = (...b: number[]) => new Uint8Array(b);
const utf8 = (s: string) => new TextEncoder().encode(s);

/** Splits as whole buckets (0.01%) that sum to exactly 100%, 2 to 6 variants. */
const splitsSummingTo100 = fc
  .array(fc.integer({ min: 0, max: BUCKETS }), { minLength: 1, maxLength: 5 })
  .map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), BUCKETS];
    return points
      .slice(1)
      .map((p, i): SplitVariant => ({ id: `v${i}`, splitPercentage: (p - points[i]!) / 100 }));
  });

describe('murmur3 (MurmurHash3 x86_32)', () => {
  it('matches the published reference vectors', () => {
    // Vectors of the SMHasher reference implementation as other libraries' tests pin them
    // (empty input with three seeds, the 0x87654321 word with two seeds, tails of 3 bytes).
    expect(murmur3(bytes(), 0)).toBe(0);
    expect(murmur3(bytes(), 1)).toBe(0x514e28b7);
    expect(murmur3(bytes(), 0xffffffff)).toBe(0x81f16f39);
    expect(murmur3(bytes(0xff, 0xff, 0xff, 0xff), 0)).toBe(0x76293b50);
    expect(murmur3(bytes(0x21, 0x43, 0x65, 0x87), 0)).toBe(0xf55b516b);
    expect(murmur3(bytes(0x21, 0x43, 0x65, 0x87), 0x5082edee)).toBe(0x2362f9de);
    expect(murmur3(bytes(0x21, 0x43, 0x65), 0)).toBe(0x7e4a8634);
    expect(murmur3(utf8('Hello, world!'))).toBe(3224780355);
    expect(murmur3(utf8('hello, world'))).toBe(345750399);
    expect(murmur3(utf8('Hello world'))).toBe(2911983372);
  });
});

describe('bucketOf', () => {
  it('is pinned: these buckets must never change between versions', () => {
    // Also checked against the independent npm package murmurhash3js-revisited (x86.hash32).
    expect(bucketOf('exp_seed_1', 'user-1')).toBe(2500);
    expect(bucketOf('exp_seed_1', 'user-2')).toBe(9902);
    expect(bucketOf('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'alice@example.com')).toBe(6228);
    expect(bucketOf('checkout-test', '42')).toBe(5469);
    expect(bucketOf('ü-seed', 'ユーザー')).toBe(5750); // UTF-8 bytes, not UTF-16 code units
    expect(bucketOf('', '')).toBe(7430);
    expect(bucketOf('s', '')).toBe(5059);
  });

  it('is an integer in 0..9999 and deterministic', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (seed, user) => {
        const b = bucketOf(seed, user);
        expect(Number.isInteger(b) && b >= 0 && b < BUCKETS).toBe(true);
        expect(bucketOf(seed, user)).toBe(b);
      }),
    );
  });

  it('separates seed and user with a colon', () => {
    expect(bucketOf('ab', 'c')).not.toBe(bucketOf('a', 'bc'));
  });
});

describe('variantAtBucket', () => {
  const count = (variants: SplitVariant[]) => {
    const counts = new Map<string | null, number>();
    for (let b = 0; b < BUCKETS; b++) {
      const v = variantAtBucket(b, variants);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    return Object.fromEntries(counts);
  };

  it('fractional splits cover whole buckets exactly', () => {
    const thirds = [
      { id: 'a', splitPercentage: 33.33 },
      { id: 'b', splitPercentage: 33.33 },
      { id: 'c', splitPercentage: 33.34 },
    ];
    expect(count(thirds)).toEqual({ a: 3333, b: 3333, c: 3334 });
    expect(
      count([
        { id: 'a', splitPercentage: 0.1 },
        { id: 'b', splitPercentage: 99.9 },
      ]),
    ).toEqual({
      a: 10,
      b: 9990,
    });
  });

  it('leaves buckets past the splits unassigned, and skips zero, negative and non-finite splits', () => {
    expect(
      count([
        { id: 'a', splitPercentage: 30 },
        { id: 'b', splitPercentage: 20 },
      ]),
    ).toEqual({
      a: 3000,
      b: 2000,
      null: 5000,
    });
    expect(
      count([
        { id: 'zero', splitPercentage: 0 },
        { id: 'neg', splitPercentage: -10 },
        { id: 'nan', splitPercentage: Number.NaN },
        { id: 'a', splitPercentage: 100 },
      ]),
    ).toEqual({ a: BUCKETS });
    expect(count([])).toEqual({ null: BUCKETS });
  });

  it('maps every bucket to one of the variants when the splits sum to 100, in order', () => {
    fc.assert(
      fc.property(splitsSummingTo100, fc.integer({ min: 0, max: BUCKETS - 1 }), (variants, bucket) => {
        const id = variantAtBucket(bucket, variants);
        expect(id).not.toBeNull();
        // Ranges are contiguous and ordered: the chosen variant's index never decreases with the bucket.
        const next = variantAtBucket(Math.min(bucket + 1, BUCKETS - 1), variants);
        expect(variants.findIndex((v) => v.id === next)).toBeGreaterThanOrEqual(
          variants.findIndex((v) => v.id === id),
        );
      }),
    );
  });
});

describe('assignVariant', () => {
  it('is deterministic and always one of the variants when splits sum to 100', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), splitsSummingTo100, (seed, user, variants) => {
        const id = assignVariant(seed, user, variants);
        expect(variants.some((v) => v.id === id)).toBe(true);
        expect(assignVariant(seed, user, variants)).toBe(id);
      }),
    );
  });

  it('returns null with no variants', () => {
    expect(assignVariant('seed', 'user', [])).toBeNull();
  });

  const shapes: number[][] = [
    [50, 50],
    [33.33, 33.33, 33.34],
    [10, 90],
    [25, 25, 25, 25],
    [5, 15, 30, 50],
    [1, 2, 97],
  ];

  it.each(shapes)('10,000 users land within 2 points of each split: %j', (...splits) => {
    const variants = splits.map((s, i) => ({ id: `v${i}`, splitPercentage: s }));
    // Several fixed seeds (experiment ids) and user id styles, so the check is repeatable.
    for (const seed of ['exp-1', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'checkout']) {
      for (const userId of [(i: number) => `user-${i}`, (i: number) => String(i + 1)]) {
        const counts = new Map<string, number>();
        for (let i = 0; i < 10_000; i++) {
          const id = assignVariant(seed, userId(i), variants)!;
          counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        variants.forEach((v) => {
          const share = ((counts.get(v.id) ?? 0) / 10_000) * 100;
          expect(Math.abs(share - v.splitPercentage)).toBeLessThanOrEqual(2);
        });
      }
    }
  });

  it('assignments of two experiments are independent of each other', () => {
    // With seeds 'exp-a' and 'exp-b' at 50/50, each of the four combinations holds ~25% of users:
    // a hash whose buckets correlated across seeds would put the same users in the same arm.
    const variants = [
      { id: 'control', splitPercentage: 50 },
      { id: 'treatment', splitPercentage: 50 },
    ];
    const cells = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const key = `${assignVariant('exp-a', `u${i}`, variants)}/${assignVariant('exp-b', `u${i}`, variants)}`;
      cells.set(key, (cells.get(key) ?? 0) + 1);
    }
    expect(cells.size).toBe(4);
    for (const n of cells.values()) expect(Math.abs(n / 10_000 - 0.25)).toBeLessThanOrEqual(0.02);
  });
});
