/**
 * The priority list as pure functions: which flows and content items start by themselves (as the
 * service's `withPolicyFields` decides), the service's delivery order, and the priorities that
 * make a new order the service's order while changing as few items as possible.
 */

/** A flow or content item as the priority list shows it. */
export interface AutoStartItem {
  kind: 'flow' | 'content';
  /** The content type's slug (`announcements`); null for a flow. */
  contentType: string | null;
  id: string;
  name: string;
  status: string;
  priority: number;
  bypassCaps: boolean;
  publishedAt: string | null;
  createdAt: string;
}

/** The content types whose items can start by themselves (self-help waits for the user; NPS has no priority). */
export const AUTO_START_CONTENT_TYPES = [
  'tooltips',
  'beacons',
  'task-lists',
  'surveys',
  'announcements',
] as const;

const MANUAL_CONTENT_TRIGGERS = new Set(['manual', 'side_button']);
const typeOf = (v: unknown): string | null =>
  v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string'
    ? (v as { type: string }).type
    : null;

/** A flow starts by itself unless its trigger is MANUAL (`startFlow`). */
export const flowStartsItself = (flow: { trigger?: unknown }) => typeOf(flow.trigger) !== 'MANUAL';

/** A content item starts by itself unless it is self-help or its trigger is `manual` / `side_button`. */
export const contentStartsItself = (contentType: string, item: { triggerConfig?: unknown }) =>
  contentType !== 'self-help' && !MANUAL_CONTENT_TRIGGERS.has(typeOf(item.triggerConfig) ?? '');

/** `Flow`, or the content type's name (`Task lists`, `NPS survey`). */
export const kindLabel = (item: { kind: 'flow' | 'content'; contentType: string | null }) =>
  item.kind === 'flow'
    ? 'Flow'
    : item.contentType === 'nps-surveys'
      ? 'NPS survey'
      : (item.contentType ?? '').replace(/^./, (c) => c.toUpperCase()).replace(/-/g, ' ');

const at = (item: AutoStartItem) => Date.parse(item.publishedAt ?? item.createdAt) || 0;

/** The service's delivery order: priority descending, then the most recently published (else created), then id. */
export function byDeliveryOrder(a: AutoStartItem, b: AutoStartItem): number {
  return b.priority - a.priority || at(b) - at(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export const MAX_PRIORITY = 1_000_000;
export const MIN_PRIORITY = -1_000_000;

/**
 * The priorities that make `order` (highest first) strictly descending, so that the service's
 * order is this list whatever the items' publication dates: two candidates, one keeping the
 * bottom item's priority and raising what is above where needed, one keeping the top item's and
 * lowering what is below; the one that changes fewer items wins (ties: raising, which keeps
 * priorities non-negative). Returns only the items whose priority changes.
 */
export function priorityChanges(
  order: readonly AutoStartItem[],
): { item: AutoStartItem; priority: number }[] {
  const n = order.length;
  if (n === 0) return [];
  const up = order.map((i) => i.priority);
  for (let i = n - 2; i >= 0; i--) up[i] = Math.max(up[i]!, up[i + 1]! + 1);
  const down = order.map((i) => i.priority);
  for (let i = 1; i < n; i++) down[i] = Math.min(down[i]!, down[i - 1]! - 1);
  const changed = (p: number[]) =>
    order.flatMap((item, i) => (p[i] !== item.priority ? [{ item, priority: p[i]! }] : []));
  const [raise, lower] = [changed(up), changed(down)];
  const fits = (c: { priority: number }[]) =>
    c.every((x) => x.priority <= MAX_PRIORITY && x.priority >= MIN_PRIORITY);
  if (!fits(raise)) return lower;
  if (!fits(lower)) return raise;
  return lower.length < raise.length ? lower : raise;
}
