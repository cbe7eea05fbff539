import {
  type ContentType,
  DEFAULTS,
  JSON_FIELDS,
  ROWS,
  SERVER_FIELDS,
  SIMPLE,
  type SimpleField,
  TRIGGERS,
} from './content-types';

/**
 * The content editor's state as pure functions: a record of one type (as the API returns it, or
 * a new one from the type's defaults), its plain fields read and written, and the request body
 * built from it with the JSON fields parsed (or the fields whose JSON does not parse).
 */

export type ContentRecord = Record<string, unknown>;
type Row = Record<string, unknown>;
/** An item as the API answers it: its fields, and its live version and unpublished changes. */
export type ContentItem = ContentRecord & {
  id: string;
  name: string;
  status: string;
  audienceId: string | null;
  version?: number | null;
  hasUnpublishedChanges?: boolean;
};

/** A new item of a type: no name, no audience, no trigger, the type's defaults. */
export const newRecord = (type: ContentType): ContentRecord => ({
  name: '',
  audienceId: null,
  triggerConfig: null,
  ...DEFAULTS[type],
});

export function readField(record: ContentRecord, f: SimpleField): string {
  const v = f.path ? (record[f.path[0]] as Row | undefined)?.[f.path[1]] : record[f.key];
  return typeof v === 'string' ? v : '';
}

/** A plain field set (an emptied optional URL or follow-up question becomes null). */
export function writeField(record: ContentRecord, f: SimpleField, value: string): ContentRecord {
  if (f.path) return { ...record, [f.path[0]]: { ...(record[f.path[0]] as object), [f.path[1]]: value } };
  const optional = f.key === 'targetUrl' || f.key === 'followUpQuestion';
  return { ...record, [f.key]: value === '' && optional ? null : value };
}

/** The JSON-edited fields of a record as the text of their textareas. */
export const jsonTexts = (type: ContentType, record: ContentRecord): Record<string, string> =>
  Object.fromEntries(JSON_FIELDS[type].map((k) => [k, JSON.stringify(record[k] ?? null, null, 2)]));

export const triggerText = (record: ContentRecord): string =>
  record.triggerConfig ? JSON.stringify(record.triggerConfig, null, 2) : '';

/** The rows with `order` set to their position (what the API sorts them by). */
export const withOrder = (rows: Row[]): Row[] => rows.map((r, i) => ({ ...r, order: i }));

/**
 * The create or update body: the record less the fields the server owns, rows ordered as shown,
 * the JSON fields and the trigger parsed. `errors` names each field whose JSON does not parse.
 */
export function requestBody(
  type: ContentType,
  record: ContentRecord,
  json: Record<string, string>,
  trigger: string,
): { body: ContentRecord; errors?: undefined } | { body?: undefined; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const out: ContentRecord = {};
  for (const [k, v] of Object.entries(record)) if (!SERVER_FIELDS.has(k)) out[k] = v;
  const rows = ROWS[type];
  if (rows) out[rows] = withOrder((record[rows] as Row[] | undefined) ?? []);
  for (const k of JSON_FIELDS[type]) {
    try {
      out[k] = JSON.parse(json[k] ?? 'null');
    } catch {
      errors[k] = 'Not valid JSON';
    }
  }
  if (TRIGGERS[type]) {
    try {
      out.triggerConfig = trigger.trim() ? JSON.parse(trigger) : null;
    } catch {
      errors.triggerConfig = 'Not valid JSON';
    }
  } else delete out.triggerConfig;
  out.audienceId = out.audienceId || null;
  return Object.keys(errors).length ? { errors } : { body: out };
}

/** The request paths whose API messages the form shows next to a field (the rest go above the buttons). */
export const claimedFields = (type: ContentType): string[] => [
  'name',
  'audienceId',
  'triggerConfig',
  ...JSON_FIELDS[type],
  ...(ROWS[type] ? [ROWS[type]] : []),
  ...SIMPLE[type].map((f) => (f.path ? f.path[0] : f.key)),
];
