import type { Schemas } from '../../app/api';

/**
 * The policy form's state as pure functions: the cap scopes and periods the service accepts, the
 * form's draft of a policy (numbers as typed), and the request body built from it.
 */

/** Cap scopes as the service has them (`CAP_SCOPES`), with their labels. */
export const SCOPES = [
  { value: 'all', label: 'Everything' },
  { value: 'flows', label: 'Flows' },
  { value: 'tooltips', label: 'Tooltips' },
  { value: 'beacons', label: 'Beacons' },
  { value: 'task-lists', label: 'Task lists' },
  { value: 'surveys', label: 'Surveys' },
  { value: 'announcements', label: 'Announcements' },
  { value: 'self-help', label: 'Self-help' },
  { value: 'nps-surveys', label: 'NPS surveys' },
  { value: 'modal-like', label: 'Modal-like' },
] as const;
export const PERIODS = [
  { value: 'session', label: 'per session' },
  { value: 'hour', label: 'per hour' },
  { value: 'day', label: 'per day' },
  { value: 'week', label: 'per week' },
] as const;

export type Policy = Schemas['DeliveryPolicy'];
export type Per = Policy['caps'][number]['per'];
/** A cap row as the form holds it: `max` as typed, and a key that stays with the row. */
export interface CapRow {
  key: number;
  scope: string;
  max: string;
  per: Per;
}
export interface Draft {
  caps: CapRow[];
  cooldownSeconds: string;
  /** null: each item decides ("each item decides" checked). */
  afterDismissDays: string | null;
}

let nextKey = 0;
export const row = (scope = 'all', max = '3', per: Per = 'day'): CapRow => ({
  key: nextKey++,
  scope,
  max,
  per,
});
export const draftOf = (p: Policy): Draft => ({
  caps: p.caps.map((c) => row(c.scope, String(c.max), c.per)),
  cooldownSeconds: String(p.cooldownSeconds),
  afterDismissDays: p.afterDismissDays === null ? null : String(p.afterDismissDays),
});
/** A typed number as sent: the number, or what was typed when it is none (the API names the field). */
const num = (s: string): number | string => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);

/** The request body of `PUT /api/delivery-policy` from the form (the service validates it). */
export const bodyOf = (d: Draft) => ({
  caps: d.caps.map((c) => ({ scope: c.scope, max: num(c.max), per: c.per })),
  cooldownSeconds: num(d.cooldownSeconds),
  afterDismissDays: d.afterDismissDays === null ? null : num(d.afterDismissDays),
});
