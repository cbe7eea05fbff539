/**
 * The pure rules of target health (issue 40): what a TARGET_LOOKUP report says, how a chunk's
 * reports aggregate (one row per target, selector and hour; one per fingerprint), which
 * fingerprint a target serves, and when a target is broken. No I/O.
 */
import { fingerprintOf, type TargetFingerprint } from '../../../engine/fingerprint.js';

export const LOOKUP_OUTCOMES = ['found', 'healed', 'ambiguous', 'missing'] as const;
export type LookupOutcome = (typeof LOOKUP_OUTCOMES)[number];
export type ItemKind = 'flow' | 'content';

export const MAX_SELECTOR_LENGTH = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One lookup as the SDK reported it (`TARGET_LOOKUP` properties), checked. */
export interface LookupReport {
  itemKind: ItemKind;
  itemId: string;
  /** The flow step's id, or the content item's own id: what the health is kept for. */
  targetId: string;
  outcome: LookupOutcome;
  selector: string;
  fingerprint: TargetFingerprint | null;
  suggestedSelector: string | null;
}

const selectorOf = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== '' && v.length <= MAX_SELECTOR_LENGTH ? v : null;

/**
 * The report in `properties`, or null when it is not one: `itemKind` flow (with a `stepId`) or
 * content, ids that are UUIDs, a known `outcome`, a `selector`. A fingerprint is kept only with
 * found / healed and when it is one (format 1, ≤ 4 kB); a suggested selector only with healed.
 */
export function lookupReportOf(properties: Record<string, unknown> | undefined): LookupReport | null {
  if (!properties) return null;
  const { itemKind, itemId, stepId, outcome } = properties;
  if (itemKind !== 'flow' && itemKind !== 'content') return null;
  if (typeof itemId !== 'string' || !UUID.test(itemId)) return null;
  if (!LOOKUP_OUTCOMES.includes(outcome as LookupOutcome)) return null;
  const selector = selectorOf(properties.selector);
  if (!selector) return null;
  let targetId = itemId;
  if (itemKind === 'flow') {
    if (typeof stepId !== 'string' || !UUID.test(stepId)) return null;
    targetId = stepId;
  }
  const o = outcome as LookupOutcome;
  const seen = o === 'found' || o === 'healed';
  return {
    itemKind,
    itemId: itemId.toLowerCase(),
    targetId: targetId.toLowerCase(),
    outcome: o,
    selector,
    fingerprint: seen ? fingerprintOf(properties.fingerprint) : null,
    suggestedSelector: o === 'healed' ? selectorOf(properties.suggestedSelector) : null,
  };
}

export interface Counts {
  found: number;
  healed: number;
  ambiguous: number;
  missing: number;
}

export const noCounts = (): Counts => ({ found: 0, healed: 0, ambiguous: 0, missing: 0 });

export const totalOf = (c: Counts) => c.found + c.healed + c.ambiguous + c.missing;

/** The hour a moment falls in (UTC), as the buckets are keyed. */
export const hourOf = (at: Date): Date => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);

/** A report with where it came from. */
export interface TenantReport {
  tenantId: string;
  at: Date;
  report: LookupReport;
}

/** One row of `target_lookups` to add to. */
export interface LookupBucket extends Counts {
  tenantId: string;
  targetId: string;
  selector: string;
  hour: Date;
  itemKind: ItemKind;
  itemId: string;
  /** The latest suggested selector of the bucket's healed lookups. */
  suggestedSelector: string | null;
  lastSeenAt: Date;
}

/** The chunk's reports summed per tenant, target, selector and hour: one row each. */
export function bucketsOf(reports: readonly TenantReport[]): LookupBucket[] {
  const out = new Map<string, LookupBucket & { suggestedAt: number }>();
  for (const { tenantId, at, report: r } of reports) {
    const hour = hourOf(at);
    const key = `${tenantId}\u0000${r.targetId}\u0000${r.selector}\u0000${hour.getTime()}`;
    let b = out.get(key);
    if (!b) {
      b = {
        tenantId,
        targetId: r.targetId,
        selector: r.selector,
        hour,
        itemKind: r.itemKind,
        itemId: r.itemId,
        ...noCounts(),
        suggestedSelector: null,
        suggestedAt: -1,
        lastSeenAt: at,
      };
      out.set(key, b);
    }
    b[r.outcome]++;
    if (at > b.lastSeenAt) b.lastSeenAt = at;
    if (r.suggestedSelector && at.getTime() >= b.suggestedAt) {
      b.suggestedSelector = r.suggestedSelector;
      b.suggestedAt = at.getTime();
    }
  }
  return [...out.values()].map(({ suggestedAt: _, ...b }) => b);
}

/** One fingerprint seen in the chunk: how often, its latest copy. */
export interface FingerprintSighting {
  tenantId: string;
  targetId: string;
  selector: string;
  /** The fingerprint's identity (`fingerprintIdentity`): the caller keys it. */
  identity: string;
  fingerprint: TargetFingerprint;
  count: number;
  lastSeenAt: Date;
}

/** The chunk's fingerprints summed per tenant, target, selector and identity. */
export function sightingsOf(
  reports: readonly TenantReport[],
  identityOf: (fp: TargetFingerprint) => string,
): FingerprintSighting[] {
  const out = new Map<string, FingerprintSighting>();
  for (const { tenantId, at, report: r } of reports) {
    if (!r.fingerprint) continue;
    const identity = identityOf(r.fingerprint);
    const key = `${tenantId}\u0000${r.targetId}\u0000${r.selector}\u0000${identity}`;
    const s = out.get(key);
    if (!s) {
      out.set(key, {
        tenantId,
        targetId: r.targetId,
        selector: r.selector,
        identity,
        fingerprint: r.fingerprint,
        count: 1,
        lastSeenAt: at,
      });
    } else {
      s.count++;
      if (at >= s.lastSeenAt) {
        s.lastSeenAt = at;
        s.fingerprint = r.fingerprint;
      }
    }
  }
  return [...out.values()];
}

/** What a picked fingerprint counts for against reported ones (it was chosen by a person). */
export const PICKED_WEIGHT = 10;

export interface FingerprintCandidate {
  key: string;
  seenCount: number;
  picked: boolean;
}

const weightOf = (c: FingerprintCandidate) => c.seenCount + (c.picked ? PICKED_WEIGHT : 0);

/**
 * The fingerprint a target serves among those stored for its current selector: the one seen most
 * often (a picked one counts `PICKED_WEIGHT` more). The one served now stays until another
 * strictly outweighs it (no flapping between two equals); ties between others go to the key
 * first in order, so the choice does not depend on the rows' order. Null when there is none.
 */
export function chooseServed(
  candidates: readonly FingerprintCandidate[],
  current: string | null,
): string | null {
  let best: FingerprintCandidate | null = null;
  for (const c of candidates) {
    if (!best || weightOf(c) > weightOf(best) || (weightOf(c) === weightOf(best) && c.key < best.key))
      best = c;
  }
  if (!best) return current;
  const incumbent = current === null ? undefined : candidates.find((c) => c.key === current);
  if (incumbent && weightOf(incumbent) >= weightOf(best)) return incumbent.key;
  return best.key;
}

/** Fewest lookups in a window before its share of failures can call a target broken. */
export const BROKEN_MIN_LOOKUPS = 3;

/**
 * Whether a target is broken over a window's counts: at least `BROKEN_MIN_LOOKUPS` lookups and
 * most of them failed (missing or ambiguous: the step was not shown). Healed lookups showed the
 * step, so they count as working (they still suggest a selector). The webhook event
 * `target.broken` fires when the last hour's counts turn broken (`becameBroken`).
 */
export function isTargetBroken(c: Counts): boolean {
  const total = totalOf(c);
  return total >= BROKEN_MIN_LOOKUPS && (c.missing + c.ambiguous) * 2 > total;
}

/**
 * Whether `added` lookups (a chunk of events) turned a target broken: broken over `after`, the
 * window's counts with them, and not over the counts without them. `target.broken` fires on it,
 * once per turn (a target that stays broken sends nothing more until it recovers).
 */
export function becameBroken(after: Counts, added: Counts): boolean {
  const before = {
    found: after.found - added.found,
    healed: after.healed - added.healed,
    ambiguous: after.ambiguous - added.ambiguous,
    missing: after.missing - added.missing,
  };
  return isTargetBroken(after) && !isTargetBroken(before);
}

/** Why a target needs attention: broken in the last hour, else broken over 7 days; null when it does not. */
export function attentionOf(lastHour: Counts, week: Counts): 'hour' | 'week' | null {
  if (isTargetBroken(lastHour)) return 'hour';
  if (isTargetBroken(week)) return 'week';
  return null;
}

/** A badge for a target's 7-day counts: no data, healthy, warning (some lookups healed or failed), broken. */
export type HealthStatus = 'unknown' | 'healthy' | 'warning' | 'broken';

export function healthStatusOf(week: Counts): HealthStatus {
  if (totalOf(week) === 0) return 'unknown';
  if (isTargetBroken(week)) return 'broken';
  if (week.healed > 0 || week.missing + week.ambiguous > 0) return 'warning';
  return 'healthy';
}
