/**
 * When to retry a failed send (spec: exponential backoff, e.g. 1 s, 2 s, 4 s up to 60 s, honour
 * Retry-After). `attempt` counts failures so far (1 for the first). Jitter spreads the retries
 * of many pages over [½, 1] of the step, so a recovering service is not hit by all at once; a
 * Retry-After (whole seconds, or an HTTP date) is a floor.
 */
export const BASE_DELAY_MS = 1_000;
export const MAX_DELAY_MS = 60_000;

export function retryDelay(
  attempt: number,
  retryAfter: string | null | undefined,
  random: () => number = Math.random,
  nowMs: number = Date.now(),
): number {
  const step = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  const jittered = step / 2 + (random() * step) / 2;
  return Math.max(jittered, retryAfterMs(retryAfter, nowMs));
}

/** Retry-After in milliseconds (0 when absent or unreadable), capped at ten minutes. */
export function retryAfterMs(value: string | null | undefined, nowMs: number = Date.now()): number {
  if (!value) return 0;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    ms = Number.isNaN(at) ? 0 : at - nowMs;
  }
  return Math.min(Math.max(ms, 0), 600_000);
}

/** Whether a status is worth retrying: network failure (0), 408, 429 and 5xx. */
export const retryable = (status: number): boolean =>
  status === 0 || status === 408 || status === 429 || status >= 500;
