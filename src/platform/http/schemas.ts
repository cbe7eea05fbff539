import { z } from 'zod';

/**
 * Shared zod building blocks. Timestamps are Dates inside the service and ISO 8601 strings on
 * the wire: the codec decodes request strings and encodes response Dates.
 */
const isoDatetime = z.iso.datetime({ offset: true }).refine((s) => {
  const year = Number(s.slice(0, 4));
  return year >= 1970 && year <= 9999;
}, 'year must be between 1970 and 9999');

export const timestamp = z.codec(isoDatetime, z.date(), {
  decode: (s) => new Date(s),
  encode: (d) => d.toISOString(),
});

export const uuid = z.uuid();

/** Path ids are opaque (DECISIONS §1): any string is accepted and an unknown one answers 404. */
export const idParams = z.object({ id: z.string() });

export const jsonObject = z.record(z.string(), z.unknown());

export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export const listMeta = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: listMeta });

export const errorEnvelope = z.object({
  error: z.object({
    message: z.string(),
    statusCode: z.number().int(),
    code: z.string(),
    category: z.string(),
    details: z.unknown().optional(),
  }),
});

/** Error responses for OpenAPI: declare the statuses a route can answer with. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, errorEnvelope])) as Record<number, typeof errorEnvelope>;

export const emptyResponse = z.null().describe('No content');
