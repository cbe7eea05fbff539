import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { BYTEA_PARSERS, enablePglitePrepared } from './pglite-prepared.js';
import { yieldAfterStatements } from './pglite-turns.js';
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
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Underlying client, for code that needs driver specifics (PGlite instance or pg Pool). */
  raw: PGlite | pg.Pool;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string;
  /** Starts the embedded database from a dump of another one (PGlite's `dumpDataDir`). */
  loadDataDir?: Blob;
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 20);
  return openPglite(opts.dataDir ?? 'memory://', opts.loadDataDir);
}

async function openPostgres(url: string, max: number): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // that would crash the process. The next query reconnects.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Database;
  let closed = false;
  return {
    db,
    kind: 'postgres',
    raw: pool,
    async query(text, params) {
      const res = await pool.query(text, params as unknown[]);
      return res.rows;
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

/**
 * The embedded database's settings. PostgreSQL's default shared buffers grow PGlite's WebAssembly
 * memory well past its minimum, all of it resident: 32 MB keeps it at the minimum, and the
 * embedded database's hot rows (flows, audiences, rollups) fit many times over; the rest of
 * what is read comes from the operating system's file cache (measured: bench/README.md, "Memory
 * (PGlite)").
 */
export const PGLITE_CONF = ['shared_buffers = 32MB'];

/**
 * Creates a new PGlite data directory in a short-lived child process: initdb leaves some 200 MiB
 * of buffers behind in the process that ran it (resident long after they are garbage), which the
 * server then carries for its whole life. Opening an existing directory costs none of that.
 */
async function initPgliteDir(dataDir: string): Promise<void> {
  const script = `const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(${JSON.stringify(dataDir)}); await db.close();`;
  // Run from the project's root, where the package resolves (src/db or dist/db, two levels up).
  const cwd = fileURLToPath(new URL('../../', import.meta.url));
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    timeout: 120_000,
  });
}

async function openPglite(dataDir: string, loadDataDir?: Blob): Promise<DatabaseHandle> {
  if (!dataDir.startsWith('memory://')) {
    mkdirSync(dataDir, { recursive: true });
    const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
    if (fresh && !loadDataDir) await initPgliteDir(resolve(dataDir));
  }
  // pgvector ships as its own package for PGlite 0.5 (built for 0.5.14: package.json overrides
  // its exact peer range; src/db/internals.test.ts checks it loads).
  const client = await PGlite.create(dataDir, {
    extensions: { vector },
    postgresqlconf: PGLITE_CONF,
    ...(loadDataDir ? { loadDataDir } : {}),
    parsers: BYTEA_PARSERS,
  });
  enablePglitePrepared(client);
  yieldAfterStatements(client);
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
