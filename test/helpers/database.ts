import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { randomHex } from '../../src/platform/crypto.js';

/**
 * Where tests store data: with `DATABASE_URL` set (CI's second pass) a brand-new PostgreSQL
 * database per call on that server, dropped on close; otherwise an in-memory PGlite.
 */
export const serverDatabaseUrl = (): string | undefined => process.env.DATABASE_URL || undefined;
export const testRedisUrl = (): string | undefined => process.env.REDIS_URL || undefined;

export interface TestDatabase {
  handle: DatabaseHandle;
  url: string | undefined;
  close(): Promise<void>;
}

/**
 * A fresh database, migrated unless `migrated: false` (schema tests migrate it themselves).
 * `dataDir`: a PGlite in that directory (as the server runs it), whatever `DATABASE_URL` says.
 */
export async function createTestDatabase({
  migrated = true,
  dataDir,
}: {
  migrated?: boolean;
  dataDir?: string;
} = {}): Promise<TestDatabase> {
  const base = dataDir ? undefined : serverDatabaseUrl();
  if (!base) {
    const dump = migrated && !dataDir ? pgliteTemplateDump() : undefined;
    const handle = await openDatabase({
      dataDir: dataDir ?? 'memory://',
      ...(dump ? { loadDataDir: dump } : {}),
    });
    if (migrated && !dump) await migrate(handle);
    return { handle, url: undefined, close: () => handle.close() };
  }
  const name = `guidance_test_${randomHex(6)}`;
  const template = migrated ? process.env[PG_TEMPLATE_ENV] : undefined;
  await adminQuery(base, `create database ${name}${template ? ` template ${template}` : ''}`);
  const url = withDatabase(base, name);
  const handle = await openDatabase({ databaseUrl: url, poolSize: 10 });
  if (migrated && !template) await migrate(handle);
  return {
    handle,
    url,
    async close() {
      await handle.close();
      await adminQuery(base, `drop database if exists ${name} with (force)`);
    },
  };
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Migrated template databases, made once per test run (the service project's global setup) so
 * that each test database starts as a copy instead of running every migration again: a PGlite
 * dump loaded into a new in-memory database, and on PostgreSQL `create database … template`.
 * Their names travel to the test processes in these environment variables.
 */
export const PGLITE_TEMPLATE_ENV = 'GUIDANCE_TEST_PGLITE_TEMPLATE';
export const PG_TEMPLATE_ENV = 'GUIDANCE_TEST_PG_TEMPLATE';

const MIGRATIONS_DIR = new URL('../../src/db/migrations/', import.meta.url);
const CACHE_DIR = new URL('../../node_modules/.cache/guidance-tests/', import.meta.url);

/** The migrations' content, so a changed or added migration makes a new template. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(file).update(readFileSync(new URL(file, MIGRATIONS_DIR)));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The path of a dump of a migrated embedded database, made when the migrations changed (kept in
 * node_modules/.cache between runs; written under a temporary name and renamed, so a run that
 * dies halfway never leaves half a dump).
 */
export async function pgliteTemplate(): Promise<string> {
  const dir = CACHE_DIR.pathname;
  const path = join(dir, `pglite-${migrationsHash()}.tar`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const handle = await openDatabase({ dataDir: 'memory://' });
  try {
    await migrate(handle);
    const dump = await (handle.raw as PGlite).dumpDataDir('none');
    const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } finally {
    await handle.close();
  }
  return path;
}

let loadedDump: Blob | undefined;
/** The template's dump in this process (read once), or undefined when no template was made. */
export function pgliteTemplateDump(): Blob | undefined {
  const path = process.env[PGLITE_TEMPLATE_ENV];
  if (!path) return undefined;
  loadedDump ??= new Blob([readFileSync(path)]);
  return loadedDump;
}

/** A migrated PostgreSQL database on the server at `base` to copy test databases from. */
export async function createPgTemplate(base: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `guidance_template_${randomHex(6)}`;
  await adminQuery(base, `create database ${name}`);
  const handle = await openDatabase({ databaseUrl: withDatabase(base, name), poolSize: 2 });
  try {
    await migrate(handle);
  } finally {
    await handle.close();
  }
  return { name, drop: () => adminQuery(base, `drop database if exists ${name} with (force)`) };
}
