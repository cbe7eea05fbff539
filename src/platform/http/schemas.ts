import { z } from 'zod';
import { ROLES } from '../../db/schema/index.js';
import { ERROR_CATEGORIES, ERROR_CODES } from '../errors.js';

/**
 * Shared zod building blocks. Timestamps are Dates inside the service and ISO 8601 strings on
 * the wire: the codec decodes request strings and encodes response Dates.
 *
 * Every date and number a request may carry is bounded here, at the schema: a value the
 * database (or JavaScript) cannot hold is a 400 naming the field, never a failed statement.
 */

/** Dates and instants accepted anywhere in a request: 1970-01-01 to 9999-12-31 (UTC). */
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(10_000, 0, 1) - 1;
const DATE_RANGE_MESSAGE = 'must be between 1970-01-01 and 9999-12-31 (UTC)';

/** The instant of a valid ISO date (`YYYY-MM-DD`: its UTC midnight) or date-time (no offset: UTC). */
function instantOf(value: string): number {
  if (!value.includes('T')) return Date.parse(`${value}T00:00:00Z`);
  return Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(value) ? value : `${value}Z`);
}
const inDateRange = (value: string): boolean => {
  const ms = instantOf(value);
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
};

/** An ISO 8601 calendar date within the supported range. */
export const isoDate = () => z.iso.date().refine(inDateRange, DATE_RANGE_MESSAGE);

/** An ISO 8601 date-time with an offset (or, with `local`, without: read as UTC) within the supported range. */
export const isoDateTime = (opts: { local?: boolean } = {}) =>
  z.iso.datetime({ offset: true, local: opts.local ?? false }).refine(inDateRange, DATE_RANGE_MESSAGE);

export const timestamp = z.codec(isoDateTime(), z.date(), {
  decode: (s) => new Date(s),
  encode: (d) => d.toISOString(),
});

/** The largest value of a PostgreSQL `integer` column. */
export const INT32_MAX = 2_147_483_647;

/**
 * An integer that fits an `integer` column, and `setTimeout` in the SDK for milliseconds
 * (positions, versions, durations): larger values are refused rather than failing a statement.
 */
export const int32 = () =>
  z
    .number()
    .int()
    .min(-INT32_MAX - 1)
    .max(INT32_MAX);
export const nonNegativeInt32 = () => z.number().int().min(0).max(INT32_MAX);

export const uuid = z.uuid();

/** Emails are trimmed and lower-cased before anything compares or stores them. */
export const email = z.string().trim().toLowerCase().max(254).check(z.email());

export const role = z.enum(ROLES);

/** Path ids are opaque (DECISIONS §1): any string is accepted and an unknown one answers 404. */
export const idParams = z.object({ id: z.string() });

/**
 * Any JSON object, kept as sent. A loose object with no declared keys rather than a record of
 * unknowns: the same inputs pass (bodies come from JSON.parse, whose objects are plain, with
 * string keys, and `__proto__` is refused by the body parser), but no per-key check runs — half
 * the validation time of an SDK events batch, whose every event carries two such objects.
 */
export const jsonObject = z.looseObject({});

/** The Content-Type of an answer sent as pre-serialized JSON (Fastify's own for the JSON it serializes). */
export const JSON_UTF8 = 'application/json; charset=utf-8';

export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export const listMeta = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: listMeta });

/** The envelope of every error answer; named `Error` in the OpenAPI document. */
export const errorEnvelope = z
  .object({
    error: z.object({
      message: z.string().describe('Human-readable; may change between versions'),
      statusCode: z.number().int().describe('The HTTP status, repeated'),
      code: z.enum(ERROR_CODES).describe('Stable machine-readable code: branch on this'),
      category: z.enum(ERROR_CATEGORIES),
      details: z
        .unknown()
        .optional()
        .describe(
          'VALIDATION_ERROR: [{ path, message }] with dotted paths (`query.`/`params.` prefixed); ' +
            'INVALID_STATE_TRANSITION: { from, action }; other codes: as documented on the operation',
        ),
    }),
  })
  .meta({ id: 'Error', description: 'The error envelope of every 4xx and 5xx answer' });

/** Error responses for OpenAPI: declare the statuses a route can answer with. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, errorEnvelope])) as Record<number, typeof errorEnvelope>;

export const emptyResponse = z.null().describe('No content');

const DAY_MS = 86_400_000;

/** A bound of a date range, from a query string: a calendar date (UTC, whole day) or an instant. */
export interface DateBound {
  /** First instant of the bound: where a range starting here begins. */
  at: Date;
  /** True for a calendar date. */
  dateOnly: boolean;
  /** Exclusive end of a range ending here: the next midnight for a date, just after the instant otherwise. */
  until: Date;
}

/**
 * An ISO 8601 date (`YYYY-MM-DD`, a whole UTC day) or datetime (an offset-less one is UTC):
 * filter with `gte(column, start.at)` and `lt(column, end.until)`.
 */
export const dateBound = z
  .union([isoDate(), isoDateTime({ local: true })], {
    error: 'must be an ISO 8601 date (YYYY-MM-DD) or datetime from 1970 to 9999',
  })
  .transform((value): DateBound => {
    if (!value.includes('T')) {
      const at = new Date(`${value}T00:00:00.000Z`);
      return { at, dateOnly: true, until: new Date(at.getTime() + DAY_MS) };
    }
    // JavaScript would read a datetime without an offset as local time.
    const at = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
    return { at, dateOnly: false, until: new Date(at.getTime() + 1) };
  })
  .describe('ISO 8601 date (whole day, UTC) or datetime');

interface DateRange {
  startDate?: DateBound | undefined;
  endDate?: DateBound | undefined;
}

/** For a query schema with `startDate`/`endDate` bounds: the start may not come after the end (400 at `startDate`). */
export const orderedDateRange = <S extends z.ZodType<DateRange>>(schema: S): S =>
  schema.refine((q) => !q.startDate || !q.endDate || q.startDate.at.getTime() < q.endDate.until.getTime(), {
    path: ['startDate'],
    message: 'must not be after endDate',
  });
