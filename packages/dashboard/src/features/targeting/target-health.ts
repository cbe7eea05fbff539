import type { Schemas } from '../../app/api';

/**
 * Target health (issue 40): the pure rules between the API's answers and what the flow and content
 * editors show — a target's badge, the broken ones, the pick link, a pick's outcome.
 */

export type TargetHealth = Schemas['TargetHealth'];
export type TargetAttention = Schemas['TargetAttention'];

/** The content types with a target element (the others have no target health). */
export const TARGETED_CONTENT = ['tooltips', 'beacons'] as const;
export type TargetedContent = (typeof TARGETED_CONTENT)[number];
export const isTargetedContent = (type: string | null | undefined): type is TargetedContent =>
  (TARGETED_CONTENT as readonly (string | null | undefined)[]).includes(type);

/** One target: a flow's step, or a tooltip or beacon. */
export type TargetRef =
  | { kind: 'flow'; flowId: string; stepId: string }
  | { kind: 'content'; type: TargetedContent; id: string };

/** The target a needs-attention entry names (null for a content type without targets). */
export function targetOf(e: TargetAttention): TargetRef | null {
  if (e.itemKind === 'flow') return e.stepId ? { kind: 'flow', flowId: e.itemId, stepId: e.stepId } : null;
  return isTargetedContent(e.contentType) ? { kind: 'content', type: e.contentType, id: e.itemId } : null;
}

/** Where the target is edited in the dashboard. */
export const editorPath = (t: TargetRef): string =>
  t.kind === 'flow' ? `/flows/${t.flowId}` : `/content/${t.type}/${t.id}`;

/** The body of `POST /api/pick-tokens` for a target. */
export const pickTokenBody = (t: TargetRef) =>
  t.kind === 'flow'
    ? { itemKind: 'flow' as const, itemId: t.flowId, stepId: t.stepId }
    : { itemKind: 'content' as const, itemId: t.id };

export interface Picked {
  selector: string;
  fingerprint: Record<string, unknown> | null;
}

/**
 * The `targetFingerprint` to save with a selector: the picked element's, while the selector is
 * still the one picked. Otherwise none is sent: the service keeps the fingerprint of an unchanged
 * selector and forgets it for another one.
 */
export const pickedFingerprint = (picked: Picked | undefined, selector: string) =>
  picked && picked.selector === selector && picked.fingerprint
    ? { targetFingerprint: picked.fingerprint as { v: 1; tag: string } }
    : {};

export interface Badge {
  label: string;
  tone: 'muted' | 'ok' | 'warn' | 'bad';
  /** What the badge means, for its title and screen readers. */
  detail: string;
}

const total = (h: Pick<TargetHealth, 'found' | 'healed' | 'missing' | 'ambiguous'>) =>
  h.found + h.healed + h.missing + h.ambiguous;

/** The badge of a step's target health (7 days; the last hour wins when it is broken). */
export function healthBadge(h: TargetHealth | undefined): Badge | null {
  if (!h) return null;
  const n = total(h);
  const counts = `${h.found} found, ${h.healed} healed, ${h.missing} missing, ${h.ambiguous} ambiguous in 7 days`;
  if (h.broken) return { label: 'Broken', tone: 'bad', detail: `Mostly failing in the last hour; ${counts}` };
  switch (h.status) {
    case 'unknown':
      return { label: 'No data', tone: 'muted', detail: 'Not looked up in the last 7 days' };
    case 'healthy':
      return { label: 'Healthy', tone: 'ok', detail: counts };
    case 'warning':
      return {
        label: h.healed > 0 && h.missing + h.ambiguous === 0 ? 'Healed' : 'Warning',
        tone: 'warn',
        detail: counts,
      };
    default:
      return { label: 'Broken', tone: 'bad', detail: n > 0 ? counts : 'Broken' };
  }
}

/** The steps that need the author: broken (last hour or 7 days) or with a selector to apply, in order. */
export function stepsNeedingAttention(health: readonly TargetHealth[]): TargetHealth[] {
  return health
    .filter((h) => h.broken || h.status === 'broken' || h.suggestedSelector !== null)
    .sort((a, b) => a.order - b.order);
}

/** Whether any step's lookups mostly fail in the last hour (the notice). */
export const brokenInLastHour = (health: readonly TargetHealth[]) => health.filter((h) => h.broken);

/**
 * The customer's page to open for picking: the site URL with `#guidance-pick=<token>` as its
 * fragment (replacing any fragment it had). Null when the URL is not an http(s) URL.
 */
export function pickUrl(siteUrl: string, token: string): string | null {
  let url: URL;
  try {
    url = new URL(siteUrl.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.hash = `guidance-pick=${token}`;
  return url.toString();
}

export type PickState =
  | { state: 'idle' }
  | { state: 'waiting'; id: string; url: string }
  | ({ state: 'picked' } & Picked)
  | { state: 'expired' }
  | { state: 'failed'; message: string };

/** The next state from a poll of `GET /api/pick-tokens/:id`. */
export function afterPoll(
  current: PickState,
  pick: {
    status: 'pending' | 'picked' | 'expired';
    selector: string | null;
    fingerprint: Record<string, unknown> | null;
  },
): PickState {
  if (current.state !== 'waiting') return current;
  if (pick.status === 'picked' && pick.selector) {
    return { state: 'picked', selector: pick.selector, fingerprint: pick.fingerprint };
  }
  if (pick.status === 'expired') return { state: 'expired' };
  return current;
}

/** The site URL last used for picking, per browser (the author's own app). */
const SITE_KEY = 'guidance:pick-site';
export const lastSiteUrl = (): string => {
  try {
    return localStorage.getItem(SITE_KEY) ?? '';
  } catch {
    return '';
  }
};
export const rememberSiteUrl = (url: string) => {
  try {
    localStorage.setItem(SITE_KEY, url);
  } catch {
    // private mode: not remembered
  }
};
