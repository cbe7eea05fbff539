import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { apiKeys, sessions, users } from '../../src/db/schema/index.js';
import { provisionTenant } from '../../src/modules/tenants/provision.js';
import { createTokenService } from '../../src/platform/auth/tokens.js';
import { randomHex, sha256 } from '../../src/platform/crypto.js';
import { newId } from '../../src/platform/ids.js';

/**
 * A store for the service run as a separate process (crash test, benchmarks): a fresh
 * PostgreSQL database on `serverUrl`, or a PGlite directory; migrated and seeded with one
 * tenant, its owner's signed session, and an API key. `env` starts `src/main.ts` on it.
 */
export interface StandaloneStore {
  env: Record<string, string>;
  tenantId: string;
  apiKey: string;
  ownerToken: string;
  /** Opens the store from this process (PGlite: only while no server holds the directory). */
  open(): Promise<DatabaseHandle>;
  destroy(): Promise<void>;
}

const SECRETS = {
  JWT_SECRET: 'standalone-jwt-secret-0123456789abcdef01234',
  ENCRYPTION_KEY: 'standalone-encryption-key-0123456789abcdef',
};

export async function createStandaloneStore(opts: {
  serverUrl?: string | undefined;
  env?: Record<string, string>;
}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'guidance-'));
  let databaseUrl = '';
  if (opts.serverUrl) {
    const name = `guidance_standalone_${randomHex(6)}`;
    await adminQuery(opts.serverUrl, `create database ${name}`);
    const u = new URL(opts.serverUrl);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
  }
  const open = () =>
    databaseUrl ? openDatabase({ databaseUrl, poolSize: 4 }) : openDatabase({ dataDir: join(dataDir, 'pg') });
  const store = await open();
  await migrate(store);
  const apiKey = `wfx_${randomHex(32)}`;
  const seeded = await store.db.transaction(async (tx) => {
    const userId = newId();
    const email = `owner-${randomHex(4)}@example.com`;
    await tx.insert(users).values({ id: userId, email, name: 'Owner' });
    const { tenant } = await provisionTenant(tx, {
      name: `Standalone ${randomHex(4)}`,
      owner: { userId, email },
      plan: 'enterprise',
    });
    await tx.insert(apiKeys).values({
      id: newId(),
      tenantId: tenant.id,
      name: 'standalone',
      keyHash: sha256(apiKey),
      keyPrefix: apiKey.slice(0, 12),
    });
    const sessionId = newId();
    await tx.insert(sessions).values({
      id: sessionId,
      userId,
      tenantId: tenant.id,
      refreshTokenHash: sha256(randomHex(16)),
      refreshExpiresAt: new Date(Date.now() + 86_400_000),
    });
    return { tenantId: tenant.id, userId, sessionId };
  });
  await store.close();
  const tokens = createTokenService(SECRETS.JWT_SECRET, 24 * 3600);
  const ownerToken = await tokens.signAccess({
    userId: seeded.userId,
    tenantId: seeded.tenantId,
    sessionId: seeded.sessionId,
  });
  return {
    env: { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...opts.env },
    tenantId: seeded.tenantId,
    apiKey,
    ownerToken,
    open,
    async destroy() {
      if (databaseUrl) {
        const name = new URL(databaseUrl).pathname.slice(1);
        await adminQuery(opts.serverUrl!, `drop database if exists ${name} with (force)`);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  } satisfies StandaloneStore;
}

async function adminQuery(url: string, text: string): Promise<void> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Raw SQL on a seeded store's database or in one of its transactions (benchmarks seed with it). */
export { rawQuery as seedQuery } from '../../src/db/raw.js';
