import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseHandle } from './client.js';

/**
 * The ordered SQL files in `migrations/` are the schema's source of truth (the drizzle schema
 * mirrors them; `test/schema-drift.test.ts` compares the two). Each file runs once, in its own
 * transaction; an advisory lock makes concurrent boots (several instances, parallel test
 * workers) apply each file exactly once.
 *
 * Applied files are immutable: the sha256 of each is recorded when it runs and checked at every
 * boot, so an edited (or deleted) applied migration refuses to start, naming the file, instead
 * of leaving an older database silently different from a new one. A change is a new file.
 */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 727_001;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export const checksumOf = (sql: string): string => createHash('sha256').update(sql).digest('hex');

export function listMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    });
}

export class MigrationChecksumError extends Error {
  constructor(
    readonly file: string,
    reason: 'edited' | 'missing',
  ) {
    super(
      reason === 'edited'
        ? `migration ${file} was edited after it was applied to this database (its sha256 differs from the one recorded); ` +
            'restore the file as it was and put the change in a new migration'
        : `migration ${file} was applied to this database but its file is missing; restore it`,
    );
    this.name = 'MigrationChecksumError';
  }
}

export async function migrate(
  handle: DatabaseHandle,
  files: MigrationFile[] = listMigrations(),
): Promise<string[]> {
  const applied: string[] = [];
  if (handle.kind === 'pglite') {
    await runMigrations(handle, files, applied);
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
    await runMigrations(scoped, files, applied);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}

async function runMigrations(
  handle: DatabaseHandle,
  files: MigrationFile[],
  applied: string[],
): Promise<void> {
  await handle.query(
    'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
  );
  // Databases migrated before checksums were recorded get theirs on first boot (see 0019).
  await handle.query('alter table schema_migrations add column if not exists checksum text');
  const rows = await handle.query<{ name: string; checksum: string | null }>(
    'select name, checksum from schema_migrations',
  );
  const byName = new Map(files.map((f) => [f.name, f]));
  for (const row of rows) {
    const file = byName.get(row.name);
    if (!file) throw new MigrationChecksumError(row.name, 'missing');
    if (row.checksum === null) {
      await handle.query('update schema_migrations set checksum = $2 where name = $1', [
        file.name,
        file.checksum,
      ]);
    } else if (row.checksum !== file.checksum) {
      throw new MigrationChecksumError(row.name, 'edited');
    }
  }
  const done = new Set(rows.map((r) => r.name));
  for (const m of files) {
    if (done.has(m.name)) continue;
    await handle.query('begin');
    try {
      await execMulti(handle, m.sql);
      await handle.query('insert into schema_migrations (name, checksum) values ($1, $2)', [
        m.name,
        m.checksum,
      ]);
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
