import type { SQL } from 'drizzle-orm';
import type { Executor } from './client.js';

interface RawClient {
  query(text: string, params: unknown[]): Promise<unknown>;
}

/**
 * Parameterised raw SQL on the database or inside an open drizzle transaction, for statements
 * drizzle does not express well (unnest of arrays, SKIP LOCKED claims). Both drivers (pg and
 * PGlite) keep their client on the drizzle session and answer `{ rows }`.
 */
export async function rawQuery<T>(exec: Executor, text: string, params: unknown[] = []): Promise<T[]> {
  const session = (exec as unknown as { session: { client: RawClient } }).session;
  const res = await session.client.query(text, params);
  return (res as { rows: T[] }).rows;
}

/** The rows of a drizzle `sql` statement (both drivers answer `{ rows }`). */
export async function sqlRows<T>(exec: Executor, query: SQL): Promise<T[]> {
  const res = await exec.execute(query);
  return (res as unknown as { rows: T[] }).rows;
}

/** Joins the parts of an in-memory row key (NUL never occurs in ids, days or selectors). */
export const SEP = '\u0000';

/**
 * The values in key order. Set-based writers send their rows in this order, so concurrent
 * processors lock shared rows in the same order and wait for each other instead of deadlocking.
 */
export function sortedByKey<T>(entries: Iterable<readonly [string, T]>): T[] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** How a column is read from a row: a field name or a function. */
export type ColumnPicker<T> = (keyof T & string) | ((row: T) => unknown);

/** The column arrays of `rows`, one per picker, for `unnest($1::type[], $2::type[], ...)`. */
export function columnsOf<T>(rows: readonly T[], pickers: readonly ColumnPicker<T>[]): unknown[][] {
  return pickers.map((pick) =>
    typeof pick === 'function' ? rows.map((row) => pick(row)) : rows.map((row) => row[pick]),
  );
}

/**
 * A json value of a row read by raw SQL: the drivers parse `json`/`jsonb` columns, but a value a
 * prepared statement reads as text (or a `json` built into a text column) arrives as its text.
 */
export function jsonValue<T>(value: unknown): T | undefined {
  if (value === null || value === undefined) return undefined;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
