import pg from 'pg';
import type { Executor } from './client.js';
import { isCachedPlanInvalid } from './errors.js';
import { pgliteRunnerOf } from './pglite-prepared.js';

/** Statement names by text, the same on every PostgreSQL connection (each prepares a name once). */
const names = new Map<string, string>();
let named = 0;
const nameOf = (text: string) => {
  let name = names.get(text);
  if (!name) {
    name = `hot_${++named}`;
    names.set(text, name);
  }
  return name;
};

async function pgNamed<T>(
  client: pg.Pool | pg.ClientBase,
  text: string,
  params: readonly unknown[],
): Promise<T[]> {
  try {
    return (await client.query({ name: nameOf(text), text, values: params as unknown[] })).rows;
  } catch (err) {
    if (!isCachedPlanInvalid(err)) throw err;
    // A migration changed a column the statement returns; the connections that prepared it
    // keep the old plan, so the text gets a new name that each prepares afresh.
    names.delete(text);
    // Inside a transaction the error has aborted it: the caller's retry uses the new name.
    if (!(client instanceof pg.Pool)) throw err;
    return (await client.query({ name: nameOf(text), text, values: params as unknown[] })).rows;
  }
}

/**
 * `rawQuery` for a hot statement of fixed text: parsed and planned once per connection, then
 * only bound and executed (a named prepared statement). Works on the database or inside an open
 * transaction, on PostgreSQL and PGlite. Each distinct text stays prepared for the connection's
 * life: use it for a small, fixed set of statements, never for generated text.
 */
export function preparedQuery<T>(exec: Executor, text: string, params: readonly unknown[]): Promise<T[]> {
  const client = (exec as unknown as { session: { client: object } }).session.client;
  const pglite = pgliteRunnerOf(client);
  if (pglite) return pglite<T>(text, params);
  if (client instanceof pg.Pool || client instanceof pg.Client) return pgNamed<T>(client, text, params);
  throw new Error(
    'preparedQuery: a PGlite database opened without enablePglitePrepared, or an unknown driver',
  );
}
