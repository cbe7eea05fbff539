/**
 * Deterministic experiment assignment: every instance, given the same experiment seed and end
 * user id, computes the same bucket and so the same variant, with no coordination. The HTTP
 * layer persists the first assignment; this module only decides it.
 *
 * The bucket is MurmurHash3 x86_32 (Austin Appleby's reference, seed 0) of the UTF-8 bytes of
 * `${seed}:${endUserId}`, modulo 10,000. Murmur3 rather than FNV-1a (GrowthBook's hash):
 * FNV-1a ends with one multiply, so ids differing in their last character ("user-1",
 * "user-2") get hashes a small multiple of the prime apart and fall into patterned buckets
 * (GrowthBook's hash v2 hashes twice to hide it); Murmur3's finaliser mixes every input bit
 * into every output bit. Changing anything here reshuffles every running experiment: the test
 * vectors in assignment.test.ts pin it.
 */

export const BUCKETS = 10_000;

const encoder = new TextEncoder();

/** MurmurHash3 x86_32 of `bytes` as an unsigned 32-bit integer. */
export function murmur3(bytes: Uint8Array, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = bytes.length - (bytes.length % 4);
  for (let i = 0; i < blocks; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (bytes.length & 3) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: the reference tail falls through
    case 3:
      k ^= bytes[blocks + 2]! << 16;
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: the reference tail falls through
    case 2:
      k ^= bytes[blocks + 1]! << 8;
    case 1:
      k ^= bytes[blocks]!;
      k = Math.imul(k, c1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, c2);
      h ^= k;
  }
  h ^= bytes.length;
  // fmix32: the finaliser that spreads every bit over the whole word.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The user's bucket in 0..9999 for an experiment; stable forever for the same inputs. */
export function bucketOf(seed: string, endUserId: string): number {
  return murmur3(encoder.encode(`${seed}:${endUserId}`)) % BUCKETS;
}

export interface SplitVariant {
  id: string;
  /** Percent of users, 0–100, fractions allowed (33.33 / 33.33 / 33.34). */
  splitPercentage: number;
}

/**
 * The variant whose cumulative split range holds the user's bucket, or null when the splits
 * leave the bucket uncovered (they sum to less than 100, or there are no variants).
 *
 * Range ends are cumulative percentages rounded to whole buckets (1 bucket = 0.01%), so
 * fractional splits never drift: 33.33 / 33.33 / 33.34 cover exactly 3333 / 3333 / 3334
 * buckets. A negative or non-finite split counts as 0.
 */
export function assignVariant(
  seed: string,
  endUserId: string,
  variants: readonly SplitVariant[],
): string | null {
  return variantAtBucket(bucketOf(seed, endUserId), variants);
}

/** The variant whose range holds `bucket` (0..9999); see assignVariant. */
export function variantAtBucket(bucket: number, variants: readonly SplitVariant[]): string | null {
  let cumulative = 0;
  for (const variant of variants) {
    const split = variant.splitPercentage;
    if (Number.isFinite(split) && split > 0) cumulative += split;
    if (bucket < Math.round((cumulative * BUCKETS) / 100)) return variant.id;
  }
  return null;
}
