import type { Executor } from '../../db/client.js';
import { isPlainObject } from '../../engine/json.js';
import { FORBIDDEN_SEGMENTS } from '../../engine/rules.js';
import { findTranslationsOf } from './store/translations.js';

/**
 * Delivery-side translation (SDK sessions and anything that serves content in a locale).
 *
 * For each field, the value comes from the first of: the requested locale (`pt-BR`), its base
 * language when the tenant has it (`pt`), the tenant's default locale, the record's own value.
 * A blank translation counts as missing. Field names may be dotted paths into nested objects
 * and arrays (`content.title`, `steps.0.content.title`); only fields present in the record are
 * replaced (an absent key or array index is ignored: translations never invent structure).
 */

export type TranslatedFields = ReadonlyMap<string, string>;

export interface ContentRef {
  contentType: string;
  contentId: string;
}

export interface TranslationLookup {
  /** The best value per field name for this record (empty when nothing applies). */
  fieldsFor(contentType: string, contentId: string): TranslatedFields;
}

const EMPTY: TranslatedFields = new Map();
const refKey = (contentType: string, contentId: string) => `${contentType}\u0000${contentId}`;

/**
 * Loads, with ONE query, the translations of every listed record in the requested locale, its
 * base language and the default locale. `localeCode` undefined (or unknown to the tenant):
 * default locale only.
 */
export async function loadTranslations(
  exec: Executor,
  tenantId: string,
  localeCode: string | undefined,
  items: ContentRef[],
): Promise<TranslationLookup> {
  const unique = new Map<string, ContentRef>();
  for (const item of items) unique.set(refKey(item.contentType, item.contentId), item);
  const byRecord = new Map<string, Map<string, string>>();
  if (unique.size > 0) {
    const requested = localeCode?.trim().toLowerCase() || null;
    const base = requested?.includes('-') ? requested.split('-')[0]! : null;
    const refs = [...unique.values()];
    const rows = await findTranslationsOf(
      exec,
      tenantId,
      { requested, base },
      { contentTypes: refs.map((r) => r.contentType), contentIds: refs.map((r) => r.contentId) },
    );
    // best (lowest) rank wins per field
    const best = new Map<string, number>();
    for (const row of rows) {
      const rk = refKey(row.contentType, row.contentId);
      const fk = `${rk}\u0000${row.fieldName}`;
      const seen = best.get(fk);
      if (seen !== undefined && seen <= row.rank) continue;
      best.set(fk, row.rank);
      const fields = byRecord.get(rk) ?? new Map<string, string>();
      byRecord.set(rk, fields);
      fields.set(row.fieldName, row.value);
    }
  }
  return {
    fieldsFor: (contentType, contentId) => byRecord.get(refKey(contentType, contentId)) ?? EMPTY,
  };
}

/**
 * Pure: a copy of `record` with each `fields` entry (field name or dotted path → value) written
 * at its path. Only the containers on a written path are copied; the input is never modified.
 */
export function applyTranslations<T extends Record<string, unknown>>(
  record: T,
  fields: TranslatedFields | Record<string, string>,
): T {
  const entries: [string, string][] =
    fields instanceof Map ? [...(fields as TranslatedFields).entries()] : Object.entries(fields);
  let result: unknown = record;
  for (const [path, value] of entries) {
    const segments = path.split('.');
    if (segments.some((s) => s === '' || FORBIDDEN_SEGMENTS.has(s))) continue;
    result = setAt(result, segments, value) ?? result;
  }
  return result as T;
}

/** A copy of `node` with `value` at `segments`, or undefined when the path does not exist in it. */
function setAt(node: unknown, segments: string[], value: string): unknown {
  const [head, ...rest] = segments as [string, ...string[]];
  if (Array.isArray(node)) {
    if (!/^\d+$/.test(head)) return undefined;
    const index = Number(head);
    if (index >= node.length) return undefined;
    const child = rest.length === 0 ? value : setAt(node[index], rest, value);
    if (child === undefined) return undefined;
    const copy = node.slice();
    copy[index] = child;
    return copy;
  }
  if (!isPlainObject(node)) return undefined;
  const obj = node as Record<string, unknown>;
  if (!Object.hasOwn(obj, head)) return undefined;
  const child = rest.length === 0 ? value : setAt(obj[head], rest, value);
  if (child === undefined) return undefined;
  return { ...obj, [head]: child };
}
