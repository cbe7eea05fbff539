import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseHandle } from './client.js';

/**
 * Applies the ordered SQL files in `migrations/` that have not run yet, each in its own
 * transaction. An advisory lock makes concurrent boots (several instances, parallel test
 * workers) apply each file exactly once.
 */
const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 727_001;

function listMigrations(): { name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8') }));
}

export async function migrate(handle: DatabaseHandle): Promise<string[]> {
  const applied: string[] = [];
  if (handle.kind === 'pglite') {
    await runMigrations(handle, applied);
    return applied;
  }
  const pool = handle.raw as import('pg').Pool;
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    const scoped: DatabaseHandle = {
      ...handle,
      query: async (text, params) => (await client.query(text, params as unknown[])).rows,
    };
    await runMigrations(scoped, applied);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}

async function runMigrations(handle: DatabaseHandle, applied: string[]): Promise<void> {
  await handle.query(
    'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
  );
  const done = new Set(
    (await handle.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name),
  );
  for (const m of listMigrations()) {
    if (done.has(m.name)) continue;
    await handle.query('begin');
    try {
      await execMulti(handle, m.sql);
      await handle.query('insert into schema_migrations (name) values ($1)', [m.name]);
      await handle.query('commit');
      applied.push(m.name);
    } catch (err) {
      await handle.query('rollback');
      throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
    }
  }
}

/** Files may hold several statements; both drivers accept a multi-statement string without parameters. */
async function execMulti(handle: DatabaseHandle, sql: string): Promise<void> {
  if (handle.kind === 'pglite' && 'exec' in handle.raw) {
    await (handle.raw as import('@electric-sql/pglite').PGlite).exec(sql);
    return;
  }
  await handle.query(sql);
}
