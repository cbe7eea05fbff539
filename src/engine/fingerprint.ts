import { z } from 'zod';

/**
 * A target element's fingerprint as the browser SDK records it (`Fingerprint`,
 * packages/sdk/src/target/types.ts; issue 40): reported with `TARGET_LOOKUP`, sent by the element
 * picker, stored per flow step and targeted content item, served back as `targetFingerprint`.
 * The service does not interpret it beyond its format version and tag: it is kept as sent
 * (unknown fields included), at most 4 kB of JSON.
 */
export const MAX_FINGERPRINT_BYTES = 4096;

export const targetFingerprint = z
  .looseObject({
    v: z.literal(1),
    tag: z.string().min(1).max(64),
  })
  .refine((fp) => JSON.stringify(fp).length <= MAX_FINGERPRINT_BYTES, {
    error: `a fingerprint is at most ${MAX_FINGERPRINT_BYTES} bytes of JSON`,
  })
  .describe("The target element's fingerprint (the SDK's Fingerprint, format 1)");
export type TargetFingerprint = z.output<typeof targetFingerprint>;

/** A value that is a fingerprint (format 1, within the size), or null. */
export function fingerprintOf(value: unknown): TargetFingerprint | null {
  const parsed = targetFingerprint.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Fields that change with the viewport, not with the element: left out of a fingerprint's identity. */
const VOLATILE = new Set(['rect']);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/**
 * The identity of a fingerprint: its JSON with keys sorted and the position left out, so that
 * two reports of one element from different viewports count as the same fingerprint.
 */
export function fingerprintIdentity(fp: Record<string, unknown>): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fp)) if (!VOLATILE.has(k)) rest[k] = v;
  return JSON.stringify(canonical(rest));
}
