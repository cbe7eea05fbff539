/**
 * The retry schedule of a failed delivery: the first retry after `baseMs`, each next one after
 * twice the previous, each delay jittered by ±20 % (receivers that failed together are not all
 * retried at the same instant). A delivery is retried for `maxMs` after it was created: the last
 * attempt happens at that deadline, and a failure then is final.
 */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/** The delay before the attempt after `attempts` failed ones (≥ 1); `random` in [0, 1). */
export function retryDelay(attempts: number, baseMs: number, random: number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 40);
  const delay = baseMs * 2 ** exponent;
  return Math.round(delay * (0.8 + 0.4 * random));
}

/** When to try again after a failed attempt (epoch ms), or null when the delivery has failed for good. */
export function nextAttemptAt(
  input: { createdAt: number; now: number; attempts: number; random: number },
  policy: RetryPolicy,
): number | null {
  const deadline = input.createdAt + policy.maxMs;
  if (input.now >= deadline) return null;
  return Math.min(input.now + retryDelay(input.attempts, policy.baseMs, input.random), deadline);
}
