import { z } from 'zod';

/**
 * The list rules of DECISIONS §2, shared by every list route: `page` ≥ 1 and `limit` 1..100,
 * integers sent as strings; anything else is a 400.
 */
const intString = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'must be an integer').transform(Number).pipe(z.number().int().min(min).max(max));

export const paginationQuery = (defaultLimit = 20) =>
  z.object({
    page: intString(1, Number.MAX_SAFE_INTEGER).default(1),
    limit: intString(1, 100).default(defaultLimit),
  });

export interface PageRequest {
  page: number;
  limit: number;
}

export interface ListMeta {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export const pageOffset = ({ page, limit }: PageRequest) => (page - 1) * limit;

export const listMeta = ({ page, limit }: PageRequest, total: number): ListMeta => ({
  page,
  limit,
  total,
  totalPages: total === 0 ? 0 : Math.ceil(total / limit),
});

export const toList = <T>(data: T[], page: PageRequest, total: number) => ({
  data,
  meta: listMeta(page, total),
});

/** `search` is a case-insensitive substring match (DECISIONS §2); LIKE wildcards in it match literally. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
export const containsPattern = (search: string): string => `%${escapeLike(search)}%`;

/** A prefix match (LIKE wildcards in it match literally), for searches that can stop at the start. */
export const prefixPattern = (search: string): string => `${escapeLike(search)}%`;

export const sortDirection = z.enum(['asc', 'desc']);

/**
 * A list page: the page's rows and the total, queried together. Pass the two drizzle queries
 * (rows already ordered, without limit/offset; count as `select({ n: count() })`).
 */
export async function listPage<T>(
  rows: { limit(n: number): { offset(n: number): PromiseLike<T[]> } },
  total: PromiseLike<{ n: number }[]>,
  page: PageRequest,
) {
  const [data, [counted]] = await Promise.all([rows.limit(page.limit).offset(pageOffset(page)), total]);
  return toList(data, page, counted?.n ?? 0);
}
