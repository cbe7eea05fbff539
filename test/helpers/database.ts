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
    const handle = await openDatabase({ dataDir: dataDir ?? 'memory://' });
    if (migrated) await migrate(handle);
    return { handle, url: undefined, close: () => handle.close() };
  }
  const name = `guidance_test_${randomHex(6)}`;
  await adminQuery(base, `create database ${name}`);
  const url = withDatabase(base, name);
  const handle = await openDatabase({ databaseUrl: url, poolSize: 10 });
  if (migrated) await migrate(handle);
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
