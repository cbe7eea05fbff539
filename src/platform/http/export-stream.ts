import { createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { safeEqual } from '../crypto.js';
import { validationError } from '../errors.js';
import { isUuid } from '../ids.js';
import { dateBound } from './schemas.js';

/**
 * Streaming exports (docs/export.md): a route reads its rows page by page through its store
 * (keyset pagination, a page at a time in memory) and this helper writes them as NDJSON or CSV,
 * gzip-compressed when the client accepts it, with backpressure: the next page is read only once
 * the client has taken the previous one, so memory stays flat whatever the export's size.
 *
 * Every row carries the cursor that resumes the export just after it (`cursor` in an NDJSON
 * object, the last CSV column): a client whose download broke sends the cursor of the last whole
 * row it holds, with the same filters, and gets exactly the rest. Cursors are opaque: a
 * position signed with a key of the service (HMAC-SHA256, truncated), so a forged or edited one
 * is a 400 naming `cursor`, never a scan from an arbitrary place.
 */

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The query every export takes: format, cursor, and a received/created time range. */
export const exportQuery = z.object({
  format: z.enum(EXPORT_FORMATS).default('ndjson').describe('ndjson (default; one object a line) or csv'),
  from: dateBound.optional().describe('first instant (or UTC day) included; default: the beginning'),
  to: dateBound
    .optional()
    .describe('last instant (or UTC day, whole) included; default: the time of the request'),
  cursor: z
    .string()
    .max(512)
    .optional()
    .describe('resume after the row that carried this cursor (send the same filters)'),
});

/** The time range of an export: the request's time when `to` is absent (a stable snapshot). */
export function exportRange(
  query: { from?: { at: Date } | undefined; to?: { until: Date } | undefined },
  now: Date,
): { from: Date | null; until: Date } {
  const until = query.to?.until ?? new Date(now.getTime() + 1);
  if (query.from && query.from.at.getTime() >= until.getTime())
    throw validationError([{ path: 'query.to', message: 'must not be before from' }]);
  return { from: query.from?.at ?? null, until };
}

const TAG_BYTES = 12;

const tagOf = (key: string, payload: string): string =>
  createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES).toString('base64url');

/** A signed cursor of the export `kind` at the position `parts`. */
export function encodeCursor(key: string, kind: string, parts: readonly (string | number)[]): string {
  const payload = Buffer.from([kind, ...parts].join('|')).toString('base64url');
  return `${payload}.${tagOf(key, payload)}`;
}

/**
 * The position in a cursor of the export `kind`, checked against its signature and its number
 * of parts; a 400 naming `cursor` otherwise.
 */
export function decodeCursor(key: string, kind: string, cursor: string, partCount: number): string[] {
  const invalid = () =>
    validationError([{ path: 'query.cursor', message: 'is not a cursor of this export' }]);
  const dot = cursor.indexOf('.');
  if (dot <= 0) throw invalid();
  const payload = cursor.slice(0, dot);
  if (!safeEqual(cursor.slice(dot + 1), tagOf(key, payload))) throw invalid();
  const parts = Buffer.from(payload, 'base64url').toString().split('|');
  if (parts.shift() !== kind || parts.length !== partCount) throw invalid();
  return parts;
}

/** The key cursors are signed with, derived from the service's JWT secret (never the secret itself). */
export const cursorKey = (secret: string): string =>
  createHmac('sha256', secret).update('export-cursor').digest('hex');

/** A position in rows read in stored order: the row's time (UTC text to the microsecond) and id. */
export interface TimeIdPosition {
  at: string;
  id: string;
}

const MICROS_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A stored time as cursors carry it: UTC text to the microsecond. */
export const isCursorTime = (value: string | undefined): value is string => MICROS_ISO.test(value ?? '');

/** The (time, id) position of a cursor of the export `kind`: a 400 naming `cursor` unless it is one. */
function timeIdPosition(key: string, kind: string, cursor: string): TimeIdPosition {
  const [at, id] = decodeCursor(key, kind, cursor, 2);
  // Signed by this service, so well formed; checked all the same before it reaches SQL.
  if (!isCursorTime(at) || !isUuid(id))
    throw validationError([{ path: 'query.cursor', message: 'is not a cursor of this export' }]);
  return { at: at!, id: id! };
}

/**
 * The pages of an export read in (time, id) order: `read(after, limit)` answers the rows after
 * the position (all from the start when null), in order; each row becomes an exported one
 * whose cursor is its own position.
 */
async function* keysetPages<R extends TimeIdPosition>(
  read: (after: TimeIdPosition | null, limit: number) => Promise<R[]>,
  toValues: (row: R) => Record<string, unknown>,
  cursor: { key: string; kind: string; start: TimeIdPosition | null },
  limit = 1000,
): AsyncGenerator<ExportRow[]> {
  let after = cursor.start;
  for (;;) {
    const rows = await read(after, limit);
    yield rows.map((r) => ({
      values: toValues(r),
      cursor: encodeCursor(cursor.key, cursor.kind, [r.at, r.id]),
    }));
    const last = rows.at(-1);
    if (!last || rows.length < limit) return;
    after = { at: last.at, id: last.id };
  }
}

/** One exported row: its values by column, and the cursor that resumes after it. */
export interface ExportRow {
  values: Record<string, unknown>;
  cursor: string;
}

/** A CSV field: quoted when it holds a comma, a quote, a line break or leading/trailing space. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (fields: readonly unknown[]): string => `${fields.map(csvField).join(',')}\r\n`;

/** Whether the request's Accept-Encoding admits gzip (a `q=0` refuses it). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim().toLowerCase() !== 'gzip' && name?.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/**
 * Sends the export of rows read in (time, id) order from the position of `cursor` (from the
 * start without one): `read` is the store's keyset query, `toValues` a row's exported values.
 */
export function sendKeysetExport<R extends TimeIdPosition>(
  request: FastifyRequest,
  reply: FastifyReply,
  exp: Omit<ExportStream, 'pages'> & {
    key: string;
    kind: string;
    cursor: string | undefined;
    read: (after: TimeIdPosition | null, limit: number) => Promise<R[]>;
    toValues: (row: R) => Record<string, unknown>;
  },
): FastifyReply {
  const start = exp.cursor === undefined ? null : timeIdPosition(exp.key, exp.kind, exp.cursor);
  return sendExport(request, reply, {
    format: exp.format,
    name: exp.name,
    columns: exp.columns,
    pages: keysetPages(exp.read, exp.toValues, { key: exp.key, kind: exp.kind, start }),
  });
}

export interface ExportStream {
  format: ExportFormat;
  /** The file name offered to a browser, without extension (`events-export`). */
  name: string;
  /** The CSV columns, in order (`cursor` is added last); NDJSON writes each row's values as they are. */
  columns: readonly string[];
  /** The rows, a page at a time (each page one store query). */
  pages: AsyncIterable<readonly ExportRow[]>;
}

/**
 * Sends an export as a stream. The status and headers go out before the first row, so a failure
 * while streaming cannot become an error answer: the connection is cut, the response is
 * incomplete (no final chunk), and the client resumes from its last whole row's cursor.
 */
export function sendExport(request: FastifyRequest, reply: FastifyReply, exp: ExportStream): FastifyReply {
  const csv = exp.format === 'csv';
  async function* text(): AsyncGenerator<string> {
    if (csv) yield csvLine([...exp.columns, 'cursor']);
    for await (const page of exp.pages) {
      if (page.length === 0) continue;
      let out = '';
      for (const row of page) {
        out += csv
          ? csvLine([...exp.columns.map((c) => row.values[c]), row.cursor])
          : `${JSON.stringify({ ...row.values, cursor: row.cursor })}\n`;
      }
      yield out;
    }
  }
  // A small high-water mark: at most a page or two waits in memory for a slow client.
  const body = Readable.from(text(), { objectMode: false, highWaterMark: 1 });
  reply
    .header('content-type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
    .header('content-disposition', `attachment; filename="${exp.name}.${exp.format}"`)
    .header('cache-control', 'no-store')
    .header('vary', 'accept-encoding');
  if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(body);
  const gzip = createGzip({ level: 1, flush: constants.Z_NO_FLUSH });
  pipeline(body, gzip).catch((err: unknown) => request.log.warn({ err }, 'export stream ended early'));
  return reply.header('content-encoding', 'gzip').send(gzip);
}
