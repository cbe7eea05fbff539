import { type Placeholder, type SQL, sql } from 'drizzle-orm';

/**
 * Many rows as one text parameter: a line per row, fields separated by a tab, an empty field for
 * null. PostgreSQL splits it (`string_to_table`, `split_part`) for about half the CPU it takes to
 * decode the same rows from a JSON array (`json_to_recordset` builds a hash table per row), and
 * encoding a line is a `join`.
 *
 * A field must hold no tab and no newline: ids, numbers, fixed words, JSON text (which escapes
 * every control character). Free text goes through `quoted` and is read back by a `quoted`
 * column. An empty string cannot be told from null: only columns whose values are never empty.
 */
export type Field = string | number | null | undefined;

/** The lines of `rows`, one array of fields (in column order) per row. */
export const textRows = (rows: readonly (readonly Field[])[]): string =>
  rows.map((fields) => fields.join('\t')).join('\n');

/** Free text as a field: a JSON string (no raw control characters). */
export const quoted = (text: string | null | undefined): string | null =>
  text === null || text === undefined ? null : JSON.stringify(text);

/**
 * A FROM item reading the lines of `param` (e.g. `$1`) as rows of `columns`, each
 * `name type`, `name type?` when it may be null, or `name quoted?` for free text. Its rows are
 * estimated at 100 (`text_lines`, migration 0057), so joined to a large table on a key it is a
 * nested loop of index probes, not a hash join over a scan of the table.
 */
export function linesAs(param: string, alias: string, columns: readonly string[]): string {
  return `(select ${columnsOfLines(columns)} from text_lines(${param}) as line) as ${alias}`;
}

/** `linesAs` for a drizzle statement: `param` is its value (e.g. `sql.placeholder('rows')`). */
export const linesFrom = (param: SQL | Placeholder, alias: string, columns: readonly string[]): SQL =>
  sql`(select ${sql.raw(columnsOfLines(columns))} from text_lines(${param}) as line) as ${sql.identifier(alias)}`;

function columnsOfLines(columns: readonly string[]): string {
  const list = columns.map((spec, i) => {
    const [name, declared] = spec.split(' ') as [string, string];
    const nullable = declared.endsWith('?');
    const type = nullable ? declared.slice(0, -1) : declared;
    const field = `split_part(line, E'\\t', ${i + 1})`;
    const value = nullable ? `nullif(${field}, '')` : field;
    return `${type === 'quoted' ? `(${value}::json #>> '{}')` : `${value}::${type}`} as ${name}`;
  });
  return list.join(', ');
}
