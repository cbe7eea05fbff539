/**
 * The translations as the table shows them: one row per string (content type, content id,
 * field) with a cell per locale (its text and the version read, sent back on save so a
 * concurrent change answers 409). Strings added in the page, not saved yet, follow.
 */

export type Locale = { id: string; code: string; name: string; isDefault: boolean; isRtl: boolean };
export type Cell = { value: string; version: number };
export type StringRow = {
  contentType: string;
  contentId: string;
  fieldName: string;
  cells: Map<string, Cell>;
};
export type Translation = {
  contentType: string;
  contentId: string;
  fieldName: string;
  value: string;
  version: number;
  locale: { code: string };
};

export const rowKey = (r: Pick<StringRow, 'contentType' | 'contentId' | 'fieldName'>) =>
  `${r.contentType}\u0000${r.contentId}\u0000${r.fieldName}`;

/** The translations grouped by string, then the added strings that have none yet. */
export function stringRows(translations: readonly Translation[], added: readonly StringRow[]): StringRow[] {
  const rows = new Map<string, StringRow>();
  for (const t of translations) {
    const key = rowKey(t);
    const row = rows.get(key) ?? {
      contentType: t.contentType,
      contentId: t.contentId,
      fieldName: t.fieldName,
      cells: new Map(),
    };
    row.cells.set(t.locale.code, { value: t.value, version: t.version });
    rows.set(key, row);
  }
  return [...rows.values(), ...added.filter((r) => !rows.has(rowKey(r)))];
}
