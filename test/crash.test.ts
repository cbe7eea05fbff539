import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { apiKeys, users } from '../src/db/schema/index.js';
import { provisionTenant } from '../src/modules/tenants/provision.js';
import { randomHex, sha256 } from '../src/platform/crypto.js';
import { newId } from '../src/platform/ids.js';
import { createTestDatabase, serverDatabaseUrl, type TestDatabase } from './helpers/database.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * Durability (DECISIONS §4): the server is killed with SIGKILL right after answering 202s
 * under load; after a restart every acknowledged event is stored and processed exactly once.
 */
const SECRETS = {
  JWT_SECRET: 'crash-test-jwt-secret-0123456789abcdef01234',
  ENCRYPTION_KEY: 'crash-test-encryption-key-0123456789abcdef',
};

let env: Record<string, string>;
let dataDir: string | null = null;
let pgDb: TestDatabase | null = null;
let tenantId: string;
let apiKey: string;

async function openStore(): Promise<DatabaseHandle> {
  return pgDb
    ? openDatabase({ databaseUrl: pgDb.url, poolSize: 2 })
    : openDatabase({ dataDir: join(dataDir!, 'pg') });
}

beforeAll(async () => {
  const base = {
    ...SECRETS,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_GLOBAL: '0',
    RATE_LIMIT_SDK: '0',
    RATE_LIMIT_AUTH: '0',
    REDIS_URL: '',
  };
  if (serverDatabaseUrl()) {
    pgDb = await createTestDatabase();
    await pgDb.handle.close();
    env = { ...base, DATABASE_URL: pgDb.url!, DATA_DIR: mkdtempSync(join(tmpdir(), 'crash-')) };
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
    env = { ...base, DATABASE_URL: '', DATA_DIR: dataDir };
  }
  const store = await openStore();
  await migrate(store);
  apiKey = `wfx_${randomHex(32)}`;
  await store.db.transaction(async (tx) => {
    const userId = newId();
    const email = `owner-${randomHex(4)}@example.com`;
    await tx.insert(users).values({ id: userId, email });
    const { tenant } = await provisionTenant(tx, { name: `Crash ${randomHex(4)}`, owner: { userId, email } });
    tenantId = tenant.id;
    await tx.insert(apiKeys).values({
      id: newId(),
      tenantId,
      name: 'crash',
      keyHash: sha256(apiKey),
      keyPrefix: apiKey.slice(0, 12),
    });
  });
  await store.close();
}, 120_000);

afterAll(async () => {
  if (pgDb) {
    const { Client } = await import('pg');
    const u = new URL(pgDb.url!);
    const name = u.pathname.slice(1);
    u.pathname = '/postgres';
    const c = new Client({ connectionString: u.toString() });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Posts batches of 50 events from several concurrent loops; kills the server right after the Nth 202. */
async function loadUntilKilled(server: ServerProcess, killAfter: number) {
  const acknowledged: string[] = [];
  let acks = 0;
  let killed = false;
  const loop = async () => {
    while (!killed) {
      const events = Array.from({ length: 50 }, (_, i) => ({
        id: newId(),
        type: 'CLICK',
        properties: { i },
      }));
      try {
        const res = await fetch(`${server.url}/api/sdk/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ events }),
        });
        if (res.status !== 202) continue;
        acknowledged.push(...events.map((e) => e.id));
        if (++acks >= killAfter && !killed) {
          killed = true;
          server.child.kill('SIGKILL');
        }
      } catch {
        // the connection died with the server: this batch was never acknowledged
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, loop));
  await new Promise((r) =>
    server.child.exitCode !== null || server.child.signalCode ? r(null) : server.child.once('exit', r),
  );
  return acknowledged;
}

interface StoredState {
  storedIds: Map<string, number>;
  pending: number;
  processedIds: Set<string>;
}

async function readState(): Promise<StoredState> {
  const store = await openStore();
  try {
    const batches = await store.query<{ events: string; processed_at: Date | null }>(
      'select events, processed_at from event_batches where tenant_id = $1',
      [tenantId],
    );
    const storedIds = new Map<string, number>();
    for (const b of batches) {
      for (const e of JSON.parse(b.events) as { id: string }[])
        storedIds.set(e.id, (storedIds.get(e.id) ?? 0) + 1);
    }
    const processed = await store.query<{ event_id: string }>(
      'select event_id from processed_event_ids where tenant_id = $1',
      [tenantId],
    );
    return {
      storedIds,
      pending: batches.filter((b) => b.processed_at === null).length,
      processedIds: new Set(processed.map((r) => r.event_id)),
    };
  } finally {
    await store.close();
  }
}

describe('a crash right after 202s', () => {
  it('loses no acknowledged event and processes each exactly once after restart', async () => {
    const first = await startServer(env);
    const acknowledged = await loadUntilKilled(first, 40);
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(40 * 50);

    const second = await startServer(env);
    // Let the restarted instance process what the first one stored, then stop it gracefully.
    if (pgDb) {
      await expect.poll(async () => (await readState()).pending, { timeout: 30_000, interval: 250 }).toBe(0);
    } else {
      await new Promise((r) => setTimeout(r, 4000));
    }
    expect(await second.stop('SIGTERM')).toBe(0);

    const state = await readState();
    const missing = acknowledged.filter((id) => !state.storedIds.has(id));
    expect(missing).toEqual([]);
    expect(state.pending).toBe(0);
    for (const id of acknowledged) expect(state.processedIds.has(id)).toBe(true);
  }, 180_000);
});
