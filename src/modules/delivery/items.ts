import { z } from 'zod';
import { MATCH_TYPES, type UrlRule } from '../../engine/url-match.js';
import type { Servable } from './engine/choose-session.js';
import { ALL_SCOPE, FLOWS_SCOPE, MODAL_LIKE_SCOPE } from './engine/policy.js';

/** Helpers for contributors building delivery items from stored records. */

/** Translation `contentType` names: flows `flow` (alias `flows`), steps `flow-step`, content its slug (alias: singular), NPS `nps-surveys` (alias `nps-survey`). */
export const TRANSLATION_TYPES = {
  flow: ['flows', 'flow'],
  step: ['flow-step'],
  nps: ['nps-survey', 'nps-surveys'],
  content: (slug: string) => (slug.endsWith('s') ? [slug.slice(0, -1), slug] : [slug]),
};

/** The record as the dashboard API shows it (wire form); a record its schema refuses is sent as stored. */
export function encodeRecord(schema: z.ZodType, value: unknown): Record<string, unknown> {
  const encoded = z.safeEncode(schema, value as never);
  return encoded.success
    ? (encoded.data as Record<string, unknown>)
    : (JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
}

const matchType = z.enum(MATCH_TYPES).optional().catch(undefined);

/**
 * Stored triggers as delivery reads them. They were validated on write; these schemas only say
 * what delivery takes from them, and anything else reads as "no url condition" (flows: a
 * URL_MATCH trigger without a usable pattern matches nothing).
 */
const flowTrigger = z.looseObject({
  type: z.literal('URL_MATCH'),
  config: z
    .looseObject({ pattern: z.string().catch('\u0000never'), matchType })
    .catch({ pattern: '\u0000never' }),
});
const contentUrlMatch = z.looseObject({ type: z.literal('url_match'), pattern: z.string(), matchType });
const contentUrlTrigger = z.looseObject({ url: z.string() });

export function flowUrlRule(trigger: unknown): UrlRule | null {
  const parsed = flowTrigger.safeParse(trigger);
  if (!parsed.success) return null;
  const { pattern, matchType: type } = parsed.data.config;
  return type ? { pattern, matchType: type } : { pattern };
}

/** `url_match` → a url rule; the other trigger types may carry a `url` substring. */
export function contentUrlCondition(trigger: unknown): { rule: UrlRule | null; url: string | null } {
  const match = contentUrlMatch.safeParse(trigger);
  if (match.success) {
    const { pattern, matchType: type } = match.data;
    return { rule: type ? { pattern, matchType: type } : { pattern }, url: null };
  }
  const other = contentUrlTrigger.safeParse(trigger);
  return { rule: null, url: other.success ? other.data.url : null };
}

export function servableOf(item: {
  id: string;
  audienceId: string | null;
  expiresAt?: Date | null;
  contains?: (string | null | undefined)[];
  rule?: UrlRule | null;
  onDemand?: boolean;
}): Servable {
  const contains = (item.contains ?? []).filter((s): s is string => typeof s === 'string' && s.length > 0);
  const rule = item.rule ?? null;
  return {
    id: item.id,
    audienceId: item.audienceId,
    expiresAt: item.expiresAt ? item.expiresAt.getTime() : null,
    contains,
    rule,
    urlBound: contains.length > 0 || rule !== null,
    onDemand: item.onDemand ?? false,
    priority: 0,
    publishedAt: 0,
    bypassCaps: false,
    autoStart: true,
    scopes: [ALL_SCOPE],
  };
}

const MODAL_STEP_TYPES: ReadonlySet<string> = new Set(['MODAL', 'VIDEO', 'FORM']);
const MANUAL_CONTENT_TRIGGERS: ReadonlySet<string> = new Set(['manual', 'side_button']);
const policyFields = z.looseObject({
  priority: z.number().int().catch(0).default(0),
  bypassCaps: z.boolean().catch(false).default(false),
});
const typeOf = (v: unknown): string | null =>
  v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string'
    ? (v as { type: string }).type
    : null;

/**
 * What the delivery policy reads of an item, from its wire record (flows, content items, NPS
 * surveys, journey content alike): priority and bypassCaps (0 and false when absent), whether it
 * starts by itself (MANUAL flows, `manual` / `side_button` content and self-help wait for the
 * user), and its cap scopes: `all`, `flows` or its content type, and `modal-like` for flows with
 * a MODAL, VIDEO or FORM step and MODAL announcements.
 */
export function withPolicyFields(
  kind: 'flow' | 'content',
  record: Record<string, unknown>,
  at: number,
  servable: Servable,
): Servable {
  const { priority, bypassCaps } = policyFields.parse(record);
  const scopes = [ALL_SCOPE];
  let autoStart: boolean;
  if (kind === 'flow') {
    scopes.push(FLOWS_SCOPE);
    autoStart = typeOf(record.trigger) !== 'MANUAL';
    const steps = Array.isArray(record.steps) ? record.steps : [];
    if (steps.some((step) => MODAL_STEP_TYPES.has(typeOf(step) ?? ''))) scopes.push(MODAL_LIKE_SCOPE);
  } else {
    const contentType = typeof record.contentType === 'string' ? record.contentType : '';
    scopes.push(contentType);
    const trigger = typeOf(record.triggerConfig);
    autoStart = contentType !== 'self-help' && !(trigger !== null && MANUAL_CONTENT_TRIGGERS.has(trigger));
    if (contentType === 'announcements' && record.type === 'MODAL') scopes.push(MODAL_LIKE_SCOPE);
  }
  return { ...servable, priority, publishedAt: at, bypassCaps, autoStart, scopes };
}
