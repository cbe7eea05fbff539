/**
 * The tenant delivery policy (issue 38), as pure rules: which of a session's eligible items start
 * by themselves, highest priority first, within every frequency cap and the cooldown, given what
 * the end user was already served. Used by `POST /api/sdk/session` and by the explanation
 * (`GET /api/end-users/:id/delivery`) alike, through `chooseSession` (choose-session.ts).
 *
 * Semantics (docs/delivery-policy.md):
 * - Only items that start by themselves (`autoStart`) are held back; manual ones (MANUAL flows,
 *   `manual` / `side_button` content, self-help) always pass and never count.
 * - `bypassCaps` items pass every cap and the cooldown and do not count against them.
 * - A cap counts the distinct items of its scope the user was served within the rolling window
 *   (`hour`, `day`, `week`; `session`: this session's own serves). An item already counted in the
 *   window is served again without taking another slot (a tour in progress on the next page).
 * - The cooldown: no item starts within `cooldownSeconds` of another item's last serve. Within
 *   one session that means at most one new item when a cooldown is set.
 * - `afterDismissDays`: a dismissed item stays away that many days, then may come back (null:
 *   the tenant's frequency settings decide, as before the policy).
 */

export const CAP_PERIODS = ['session', 'hour', 'day', 'week'] as const;
export type CapPeriod = (typeof CAP_PERIODS)[number];

/** Rolling window length of each period; `session` has none (this session only). */
export const PERIOD_MS: Record<Exclude<CapPeriod, 'session'>, number> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};

/** Scopes every item belongs to besides its kind: `all`, and `modal-like` for modal presentations. */
export const ALL_SCOPE = 'all';
export const FLOWS_SCOPE = 'flows';
export const MODAL_LIKE_SCOPE = 'modal-like';

export interface Cap {
  /** `all`, `flows`, a content type (`announcements`, `nps-surveys`, …) or `modal-like`. */
  scope: string;
  /** At least 1. */
  max: number;
  per: CapPeriod;
}

export interface DeliveryPolicy {
  caps: Cap[];
  /** Seconds between two auto-started items for one user (0: none). */
  cooldownSeconds: number;
  /** Days a dismissed item stays away; null: the tenant's frequency settings decide. */
  afterDismissDays: number | null;
}

export const DEFAULT_POLICY: DeliveryPolicy = { caps: [], cooldownSeconds: 0, afterDismissDays: null };

/** Whether the policy holds nothing back: the session then skips it entirely (no database work). */
export const isNeutralPolicy = (p: DeliveryPolicy): boolean =>
  p.caps.length === 0 && p.cooldownSeconds <= 0 && p.afterDismissDays === null;

/** An item as the policy sees it. */
export interface PolicyItem {
  id: string;
  priority: number;
  /** Milliseconds (published, else created): ties of priority go to the most recent. */
  publishedAt: number;
  /** The cap scopes it falls in (`all`, its kind, maybe `modal-like`). */
  scopes: readonly string[];
  bypassCaps: boolean;
  autoStart: boolean;
}

/** One item the user was served (or shown), its last time: a row of the serve ledger. */
export interface ServedEntry {
  itemId: string;
  scopes: readonly string[];
  at: number;
}

export type PolicyReasonCode = 'CAPPED' | 'COOLDOWN' | 'LOWER_PRIORITY' | 'DISMISSED';

export interface PolicyVerdict {
  reason: PolicyReasonCode;
  /** What held it back, in words safe to show an author (never audience rules). */
  detail: string;
}

export interface PolicyHistory {
  served: readonly ServedEntry[];
  /** When the user dismissed each item (ms), for `afterDismissDays`. */
  dismissedAt: ReadonlyMap<string, number>;
}

export const EMPTY_HISTORY: PolicyHistory = { served: [], dismissedAt: new Map() };

/** Delivery order: priority descending, then most recently published, then id. */
export function byPriority(
  a: Pick<PolicyItem, 'id' | 'priority' | 'publishedAt'>,
  b: Pick<PolicyItem, 'id' | 'priority' | 'publishedAt'>,
): number {
  return b.priority - a.priority || b.publishedAt - a.publishedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export const capLabel = (cap: Cap): string => `${cap.max} per ${cap.per} (${cap.scope})`;

const inScope = (cap: Cap, scopes: readonly string[]) =>
  cap.scope === ALL_SCOPE || scopes.includes(cap.scope);

export interface PolicyOutcome {
  /** Index-aligned with the items given: whether each is served. */
  shown: boolean[];
  /** Why an item is not served, by index (absent: shown). */
  verdicts: Map<number, PolicyVerdict>;
  /** The items this session serves that count (auto-start, not bypassing): what the ledger records. */
  counted: number[];
}

/**
 * The policy applied to a session's eligible items (any order): each item's verdict, deciding in
 * priority order. Pure; `history` is what the user was served before this session.
 */
export function applyPolicy(
  items: readonly PolicyItem[],
  policy: DeliveryPolicy,
  history: PolicyHistory,
  nowMs: number,
): PolicyOutcome {
  const shown = new Array<boolean>(items.length).fill(false);
  const verdicts = new Map<number, PolicyVerdict>();
  const counted: number[] = [];
  const order = items.map((_, i) => i).sort((a, b) => byPriority(items[a]!, items[b]!));

  // Per cap: the distinct items occupying its window before this session, then this session's.
  // A serve stamped after `nowMs` counts too: a concurrent session of the user read its clock
  // later but took its slot first (the ledger decides them one after the other).
  const before = policy.caps.map((cap) => {
    const ids = new Set<string>();
    if (cap.per === 'session') return ids;
    const since = nowMs - PERIOD_MS[cap.per];
    for (const s of history.served) if (s.at > since && inScope(cap, s.scopes)) ids.add(s.itemId);
    return ids;
  });
  const now = before.map(() => new Set<string>());
  const cooldownMs = Math.max(0, policy.cooldownSeconds) * 1000;
  const dismissMs = policy.afterDismissDays === null ? null : policy.afterDismissDays * 86_400_000;
  let takenBy: string | null = null;

  for (const i of order) {
    const item = items[i]!;
    if (!item.autoStart) {
      shown[i] = true;
      continue;
    }
    if (dismissMs !== null) {
      const at = history.dismissedAt.get(item.id);
      if (at !== undefined && nowMs - at < dismissMs) {
        verdicts.set(i, {
          reason: 'DISMISSED',
          detail: `dismissed less than ${policy.afterDismissDays} days ago`,
        });
        continue;
      }
    }
    if (item.bypassCaps) {
      shown[i] = true;
      continue;
    }
    const verdict = capVerdict(item);
    if (verdict) {
      verdicts.set(i, verdict);
      continue;
    }
    shown[i] = true;
    counted.push(i);
    takenBy ??= item.id;
    policy.caps.forEach((cap, c) => {
      if (inScope(cap, item.scopes)) now[c]!.add(item.id);
    });
  }
  return { shown, verdicts, counted };

  function capVerdict(item: PolicyItem): PolicyVerdict | null {
    if (cooldownMs > 0) {
      for (const s of history.served) {
        if (s.itemId !== item.id && nowMs - s.at < cooldownMs)
          return {
            reason: 'COOLDOWN',
            detail: `another item was served less than ${policy.cooldownSeconds}s ago`,
          };
      }
      if (takenBy !== null && takenBy !== item.id)
        return { reason: 'LOWER_PRIORITY', detail: `cooldown: ${takenBy} starts first in this session` };
    }
    for (let c = 0; c < policy.caps.length; c++) {
      const cap = policy.caps[c]!;
      if (!inScope(cap, item.scopes)) continue;
      const old = before[c]!;
      if (old.has(item.id)) continue;
      if (old.size >= cap.max) return { reason: 'CAPPED', detail: capLabel(cap) };
      const fresh = now[c]!;
      let size = old.size;
      for (const id of fresh) if (!old.has(id)) size++;
      if (size >= cap.max)
        return { reason: 'LOWER_PRIORITY', detail: `${capLabel(cap)}: taken by higher priority items` };
    }
    return null;
  }
}
