/**
 * When to try a failed provider call again, and after how long: pure, property-tested.
 *
 * Backoff doubles from a base delay; a `Retry-After` (seconds or an HTTP date) or
 * `retry-after-ms` header from the provider wins when it asks for longer. A wait that would end
 * past the request's deadline is not worth starting: the caller fails at once instead.
 */

/** Statuses worth another try: timeouts, conflicts, rate limits and server errors. */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;

/** The wait a provider asked for, in ms, from its response headers; null when none (or unreadable). */
export function retryAfterMs(
  headers: Record<string, string | undefined> | undefined,
  nowMs: number,
): number | null {
  if (!headers) return null;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number.parseFloat(lower['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower['retry-after']?.trim();
  if (!raw) return null;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number.parseFloat(raw) * 1000;
  // An HTTP date has a weekday and a month name; Date.parse alone would read "-1" as a year.
  const at = /[a-z]{3}/i.test(raw) ? Date.parse(raw) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The wait before retry number `retry` (1 = the first retry). */
export function backoffMs(retry: number, baseMs: number, askedMs: number | null): number {
  const exponential = baseMs * 2 ** Math.max(0, retry - 1);
  return askedMs === null ? exponential : Math.max(askedMs, exponential);
}

/** Whether to wait `delayMs` and try again, with `attempts` made so far and the deadline at `deadlineMs`. */
export function shouldRetry(opts: {
  attempts: number;
  maxAttempts: number;
  delayMs: number;
  nowMs: number;
  deadlineMs: number;
}): boolean {
  return opts.attempts < opts.maxAttempts && opts.nowMs + opts.delayMs < opts.deadlineMs;
}
