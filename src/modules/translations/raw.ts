import type { SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';

/** Runs a hand-written statement on the executor (db or open transaction) and returns its rows. */
export async function rowsOf<T>(exec: Executor, query: SQL): Promise<T[]> {
  const res = await exec.execute(query);
  // node-postgres and PGlite both answer `{ rows }`
  return (res as unknown as { rows: T[] }).rows;
}
