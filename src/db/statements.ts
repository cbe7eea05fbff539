import { type Column, fillPlaceholders, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Executor } from './client.js';
import { preparedQuery } from './prepared.js';
import { rawQuery } from './raw.js';

const dialect = new PgDialect();

/**
 * A drizzle `sql` statement rendered once to fixed text (hot paths: no rendering per call, and
 * `preparedQuery` needs fixed text), with the type of its rows. Its values are
 * `sql.placeholder(name)`s, bound per call by name; values written into the template are bound as
 * they are. Conditions a partial index needs stay literals in the text (a bound value would keep
 * a generic plan off that index).
 */
export interface FixedStatement<Row, Values extends object> {
  text: string;
  params(values: Values): unknown[];
  /** Type only: the rows it answers. */
  readonly row?: Row;
}

export function fixedStatement<Row, Values extends object = Record<string, never>>(
  query: SQL,
): FixedStatement<Row, Values> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, params: (values) => fillPlaceholders(params, values as Record<string, unknown>) };
}

/** Runs a fixed statement (`rawQuery`) on the database or in an open transaction. */
export const runStatement = <Row, Values extends object>(
  exec: Executor,
  statement: FixedStatement<Row, Values>,
  values: Values,
): Promise<Row[]> => rawQuery<Row>(exec, statement.text, statement.params(values));

/** Runs a fixed statement as a named prepared statement (`preparedQuery`). */
export const runPrepared = <Row, Values extends object>(
  exec: Executor,
  statement: FixedStatement<Row, Values>,
  values: Values,
): Promise<Row[]> => preparedQuery<Row>(exec, statement.text, statement.params(values));

/** A column's bare name (an INSERT's column list, an UPDATE's SET), where a qualified one is invalid. */
export const bare = (column: Column): SQL => sql`${sql.identifier(column.name)}`;

/** `(a, b, …)`: the bare names of `columns`, for an INSERT's column list. */
export const columnList = (columns: readonly Column[]): SQL => sql`(${sql.join(columns.map(bare), sql`, `)})`;

/**
 * A timestamptz column as UTC text to the microsecond (`2026-12-07T18:00:00.123456Z`): the exact
 * value, where a JavaScript Date would drop the microseconds (keyset cursors compare against it).
 */
export const microsIso = (column: Column): SQL<string> =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
