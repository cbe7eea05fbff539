/** Readers of export bodies for tests, independent of the service's writers: NDJSON and CSV. */

/** One NDJSON line of an export: its values and the cursor that resumes after it. */
export type ExportLine = Record<string, unknown> & { id: string; cursor: string };

/** The lines of an NDJSON body (one JSON object a line; a trailing newline). */
export const parseNdjson = <L extends ExportLine = ExportLine>(body: string): L[] =>
  body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as L);

/**
 * An RFC 4180 CSV reader for tests (independent of the service's writer): fields separated by
 * commas, records by CRLF (or LF), a quoted field may hold commas, line breaks and doubled quotes.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    } else if (c === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
    i++;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
