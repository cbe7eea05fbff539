import type { StoredEvent } from '../events/index.js';
import { idIn } from '../events/index.js';

/**
 * How events map onto rollup keys, shared by the writer (rollups-effect.ts) and the reader
 * (service.ts) so both agree. Days are UTC.
 */

const MS_PER_DAY = 86_400_000;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T/;

/**
 * The day last taken from a UTC timestamp's own text (most events of a chunk share it). At first a
 * day the pattern itself would give for such a timestamp, so the shortcut never answers otherwise.
 */
let lastUtcDay = '0000-00-00';

/** `YYYY-MM-DD` of the event's timestamp (UTC). */
export function dayOf(timestamp: string): string {
  // What the pattern below would find, without testing it or cutting a new string.
  if (timestamp.startsWith(lastUtcDay) && timestamp.charCodeAt(10) === 84 && timestamp.endsWith('Z'))
    return lastUtcDay;
  if (ISO_UTC.test(timestamp) && timestamp.endsWith('Z')) {
    lastUtcDay = timestamp.slice(0, 10);
    return lastUtcDay;
  }
  return new Date(timestamp).toISOString().slice(0, 10);
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` day, and back. */
let lastDay = '';
let lastEpochDay = 0;
export function epochDay(day: string): number {
  // Nearly every event of a chunk falls on the same day or two: remember the last one.
  if (day !== lastDay) {
    lastEpochDay = Date.parse(`${day}T00:00:00.000Z`) / MS_PER_DAY;
    lastDay = day;
  }
  return lastEpochDay;
}
export const dayFromEpoch = (n: number): string => new Date(n * MS_PER_DAY).toISOString().slice(0, 10);

/** What a distinct-user count is about (analytics_user_days / analytics_reach `scope`). */
export const ACTIVE_SCOPE = 'active';
export const stepScope = (flowId: string, stepIndex: number) => `step:${flowId}:${stepIndex}`;
export const completedScope = (flowId: string) => `done:${flowId}`;

/**
 * A user key (analytics_user_days `user_key`) is a prefix and an id: `u:` the tenant's userId,
 * `a:` an anonymous id.
 */
export type UserKeyPrefix = 'u:' | 'a:';
export const USER_ID: UserKeyPrefix = 'u:';
export const ANONYMOUS_ID: UserKeyPrefix = 'a:';

/** Who counts as an active user: the tenant's userId, else the anonymous id; neither → nobody (null). */
export function activeUserOf(e: Pick<StoredEvent, 'userId' | 'anonymousId'>): UserKeyPrefix | null {
  if (e.userId) return USER_ID;
  if (e.anonymousId) return ANONYMOUS_ID;
  return null;
}

/** Who reached a step or completed a flow (DECISIONS §12): the userId; null = the event counts by itself. */
export const flowUserOf = (e: Pick<StoredEvent, 'userId'>): UserKeyPrefix | null =>
  e.userId ? USER_ID : null;

/** Heatmaps match the event url exactly, except for the fragment (`#...`), which is dropped. */
export function heatmapUrl(url: string | undefined): string | null {
  if (!url) return null;
  const hash = url.indexOf('#');
  const page = hash === -1 ? url : url.slice(0, hash);
  return page.length > 0 ? page : null;
}

const MAX_SELECTOR_LENGTH = 512;

/** `properties.selector`, trimmed and truncated; '' when absent. */
export function selectorOf(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value.trim().slice(0, MAX_SELECTOR_LENGTH);
}

const MAX_COORDINATE = 1_000_000;

/** A click coordinate in whole pixels, or null when absent, not a finite number or absurd. */
export function coordinateOf(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const v = Math.round(value);
  return Math.abs(v) <= MAX_COORDINATE ? v : null;
}

/** `properties.flowId` when it is a uuid (lower-cased), else null: such events count only in totals. */
export const flowIdOf = (props: Record<string, unknown> | undefined): string | null =>
  idIn(props, ['flowId']);

const MAX_STEP_INDEX = 100_000;

/** `properties.stepIndex` when it is an integer 0..100000, else null. */
export function stepIndexOf(props: Record<string, unknown> | undefined): number | null {
  const v = props?.stepIndex;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_STEP_INDEX ? v : null;
}

/** A range of whole UTC days, both ends included, as `YYYY-MM-DD`. */
export interface DayRange {
  startDay: string;
  endDay: string;
}
