import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { isCachedPlanInvalid } from './errors.js';
import { pglitePrepared } from './pglite-prepared.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** What service functions accept: the database itself or an open transaction. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Raw parameterised query, for the few statements drizzle does not express (COPY/UNNEST, locks). */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * `query` for a hot statement of fixed text, parsed and planned once per connection and
   * reused (a named prepared statement; on PGlite see pglite-prepared.ts). Each distinct text
   * stays prepared for the connection's life: only for a small, fixed set of statements.
   */
  queryPrepared<T = Record<string, unknown>>(text: string, params: unknown[]): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Underlying client, for code that needs driver specifics (PGlite instance or pg Pool). */
  raw: PGlite | pg.Pool;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string;
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 20);
  return openPglite(opts.dataDir ?? 'memory://');
}

async function openPostgres(url: string, max: number): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // that would crash the process. The next query reconnects.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Database;
  let closed = false;
  const names = new Map<string, string>();
  return {
    db,
    kind: 'postgres',
    raw: pool,
    async query(text, params) {
      const res = await pool.query(text, params as unknown[]);
      return res.rows;
    },
    async queryPrepared(text, params) {
      let name = names.get(text);
      if (!name) {
        name = `hot_${names.size + 1}`;
        names.set(text, name);
      }
      try {
        return (await pool.query({ name, text, values: params })).rows;
      } catch (err) {
        // A migration by a newer instance changed a column this statement returns: PostgreSQL
        // refuses the connection's cached plan ("cached plan must not change result type").
        if (isCachedPlanInvalid(err)) return (await pool.query(text, params)).rows;
        throw err;
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  let closed = false;
  return {
    db,
    kind: 'pglite',
    raw: client,
    async query(text, params) {
      const res = await client.query(text, params as unknown[]);
      return res.rows as never[];
    },
    queryPrepared: pglitePrepared(client),
    async ping() {
      if (closed) throw new Error('database closed');
      await client.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}
