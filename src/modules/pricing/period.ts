/**
 * Billing periods are calendar months anchored on the subscription start: a period that began
 * on Jan 31 ends on Feb 28 (29), then Mar 31 — the day is clamped per month, never drifts.
 */
export function addMonths(date: Date, months: number): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const out = new Date(date.getTime());
  out.setUTCDate(1);
  out.setUTCFullYear(y, m, Math.min(date.getUTCDate(), lastDay));
  return out;
}

/**
 * The period `now` falls in. A stored period that has ended rolls forward month by month
 * from its start (there is no billing provider to renew it), so monthly usage (active users,
 * AI tokens) starts again each month without a job having to touch the row.
 */
export function currentPeriod(start: Date, end: Date, now: Date): { start: Date; end: Date } {
  if (now.getTime() < end.getTime()) return { start, end };
  // Jump close to `now` first, then settle; bounded whatever the gap.
  let k = Math.max(
    1,
    (now.getUTCFullYear() - start.getUTCFullYear()) * 12 + now.getUTCMonth() - start.getUTCMonth() - 1,
  );
  while (addMonths(start, k).getTime() > now.getTime()) k--;
  while (addMonths(start, k + 1).getTime() <= now.getTime()) k++;
  return { start: addMonths(start, k), end: addMonths(start, k + 1) };
}

/** A period that starts `now` and lasts a month: a new subscription, or a plan change. */
export const newPeriod = (now: Date) => ({ currentPeriodStart: now, currentPeriodEnd: addMonths(now, 1) });
