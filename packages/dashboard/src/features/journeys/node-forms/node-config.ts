import type { NodeType } from '../journey-model';

/**
 * The journey node forms' mapping between what a person sets and the node's `config`, as the
 * server shapes it (`src/engine/journeys/schemas.ts`): durations in milliseconds from an amount
 * and a unit, a trigger's type and its own settings, a content node's type, a WAIT FOR EVENT's
 * optional time-out, a split's branches. Pure functions; each edit returns a new config.
 */

export type Config = Record<string, unknown>;

// ---- durations -------------------------------------------------------------------------------

export const UNITS = [
  { value: 'minutes', label: 'minutes', ms: 60_000 },
  { value: 'hours', label: 'hours', ms: 3_600_000 },
  { value: 'days', label: 'days', ms: 86_400_000 },
] as const;
export type Unit = (typeof UNITS)[number]['value'];
export const unitMs = (unit: Unit) => UNITS.find((u) => u.value === unit)!.ms;

/** The largest unit a duration is a whole number of (minutes when none is). */
export function splitDuration(ms: number): { amount: number; unit: Unit } {
  for (const u of [...UNITS].reverse()) {
    if (ms > 0 && ms % u.ms === 0) return { amount: ms / u.ms, unit: u.value };
  }
  return { amount: Math.round((ms / 60_000) * 100) / 100, unit: 'minutes' };
}

/** `2 hours`, `1 day`. */
export function durationText(ms: number): string {
  const { amount, unit } = splitDuration(ms);
  return `${amount} ${amount === 1 ? unit.replace(/s$/, '') : unit}`;
}

/** The milliseconds of an amount typed in a unit, or undefined while the amount is not a positive number. */
export function toMs(text: string, unit: Unit): number | undefined {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) && n > 0 ? Math.round(n * unitMs(unit)) : undefined;
}

/** Why an amount and unit are not a duration the server takes (one minute to 365 days). */
export function durationError(text: string, unit: Unit): string | undefined {
  const ms = toMs(text, unit);
  if (ms === undefined) return 'Enter a positive number';
  return ms < 1000 || ms > 365 * 86_400_000 ? 'Between one minute and 365 days' : undefined;
}

// ---- TRIGGER ---------------------------------------------------------------------------------

export const TRIGGER_TYPES = [
  { value: 'URL_MATCH', label: 'Page URL matches' },
  { value: 'CUSTOM_EVENT', label: 'Custom event' },
  { value: 'ELEMENT_CLICK', label: 'Element clicked' },
  { value: 'MANUAL', label: 'Manual (API enrollment)' },
] as const;
export const MATCH_TYPES = [
  { value: 'contains', label: 'contains' },
  { value: 'equals', label: 'equals' },
  { value: 'starts_with', label: 'starts with' },
  { value: 'ends_with', label: 'ends with' },
  { value: 'glob', label: 'glob (* and **)' },
  { value: 'regex', label: 'regular expression' },
] as const;
const TRIGGER_DEFAULTS: Record<string, Config> = {
  URL_MATCH: { matchType: 'contains', pattern: '/' },
  CUSTOM_EVENT: { eventName: '' },
  ELEMENT_CLICK: { selector: '' },
  MANUAL: {},
};

export const triggerTypeOf = (config: Config) => String(config.triggerType ?? 'URL_MATCH');
export const triggerConfigOf = (config: Config) => (config.triggerConfig ?? {}) as Config;

/** Another trigger type: its own settings start from their defaults (a URL pattern is not an event name). */
export const setTriggerType = (triggerType: string): Config => ({
  triggerType,
  triggerConfig: { ...TRIGGER_DEFAULTS[triggerType] },
});
export const patchTriggerConfig = (config: Config, patch: Config): Config => ({
  ...config,
  triggerConfig: { ...triggerConfigOf(config), ...patch },
});

// ---- CONTENT ---------------------------------------------------------------------------------

export const CONTENT_KINDS = [
  { value: 'flow', label: 'Flow', path: '/api/flows' },
  { value: 'tooltip', label: 'Tooltip', path: '/api/content/tooltips' },
  { value: 'beacon', label: 'Beacon', path: '/api/content/beacons' },
  { value: 'task-list', label: 'Task list', path: '/api/content/task-lists' },
  { value: 'survey', label: 'Survey', path: '/api/content/surveys' },
  { value: 'announcement', label: 'Announcement', path: '/api/content/announcements' },
  { value: 'self-help', label: 'Self-help widget', path: '/api/content/self-help' },
  { value: 'nps-survey', label: 'NPS survey', path: '/api/nps-surveys' },
] as const;

export const contentKindOf = (config: Config) => String(config.contentType ?? 'flow');
export const contentKindPath = (kind: string) =>
  CONTENT_KINDS.find((k) => k.value === kind)?.path ?? '/api/flows';
export const contentKindLabel = (kind: string) =>
  CONTENT_KINDS.find((k) => k.value === kind)?.label ?? 'Item';

// ---- WAIT FOR EVENT --------------------------------------------------------------------------

/** The time-out on (with the last one set, 3 days at first) or off (the `timeout` key removed). */
export function withTimeout(config: Config, on: boolean, lastTimeout: number): Config {
  const { timeout: _drop, ...rest } = config;
  return on ? { ...rest, timeout: lastTimeout } : rest;
}
export const DEFAULT_TIMEOUT = 3 * 86_400_000;

// ---- SPLIT -----------------------------------------------------------------------------------

export type Branch = { label: string; percentage: number };
export const MIN_BRANCHES = 2;
export const MAX_BRANCHES = 10;

export const branchesOf = (config: Config) => (config.branches as Branch[] | undefined) ?? [];
export const splitTotal = (branches: readonly Branch[]) =>
  branches.reduce((s, b) => s + (Number(b.percentage) || 0), 0);

/** The first letter no branch is labelled with yet (`Branch n` past Z). */
export function nextBranchLabel(branches: readonly Branch[]): string {
  const labels = branches.map((b) => b.label.trim());
  for (let i = 0; i < 26; i++) {
    const l = String.fromCharCode(65 + i);
    if (!labels.includes(l)) return l;
  }
  return `Branch ${branches.length + 1}`;
}

/** A new branch takes what is left of 100%. */
export const addBranch = (branches: readonly Branch[]): Branch[] => [
  ...branches,
  { label: nextBranchLabel(branches), percentage: Math.max(0, 100 - splitTotal(branches)) },
];
export const setBranch = (branches: readonly Branch[], i: number, patch: Partial<Branch>): Branch[] =>
  branches.map((b, j) => (j === i ? { ...b, ...patch } : b));
export const removeBranch = (branches: readonly Branch[], i: number): Branch[] =>
  branches.filter((_, j) => j !== i);
/** A percentage typed: a whole number, 0 when not a number. */
export const percentageOf = (text: string) => Math.round(Number(text) || 0);

/** Whether branch `i`'s label is empty or used by an earlier branch (its edge would be ambiguous). */
export const badBranchLabel = (branches: readonly Branch[], i: number) => {
  const labels = branches.map((b) => b.label.trim());
  return !labels[i] || labels.indexOf(labels[i]!) !== i;
};
export const branchLabelsValid = (branches: readonly Branch[]) =>
  branches.every((_, i) => !badBranchLabel(branches, i));

// ---- the JSON disclosure ---------------------------------------------------------------------

/** A configuration typed as JSON: the object, or why it is not one. */
export function parseConfig(text: string): { config: Config } | { error: string } {
  try {
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return { error: 'An object is expected' };
    return { config: parsed };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** What every node form gets: its node's type, config and content id, and where its edits go. */
export interface NodeFormProps {
  type: NodeType;
  config: Config;
  contentId: string | null;
  onChange(patch: { config?: Config; contentId?: string | null }): void;
}
