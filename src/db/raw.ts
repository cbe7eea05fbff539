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
