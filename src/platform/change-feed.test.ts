import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { type ChangeFeed, createChangeFeed } from './change-feed.js';

/** Two instances' feeds on one database (the same PGlite, or one PostgreSQL database). */
describe('change feed: the database announces changes to every instance', () => {
  let db: TestDatabase;
  let a: ChangeFeed;
  let b: ChangeFeed;
  const log = pino({ level: 'silent' });
  beforeAll(async () => {
    db = await createTestDatabase();
    a = createChangeFeed(db.handle, log);
    b = createChangeFeed(db.handle, log);
    await Promise.all([a.ready, b.ready]);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.close();
  });

  const heardBy = (feed: ChangeFeed, topic: string) => {
    const heard: string[] = [];
    feed.subscribe(topic, (key) => heard.push(key));
    return heard;
  };

  it('delivers a committed change to every listening instance, the one that made it included', async () => {
    const onA = heardBy(a, 'probe');
    const onB = heardBy(b, 'probe');
    await db.handle.query(`select announce_change('probe', 'k1')`);
    await a.sync();
    expect(onA).toEqual(['k1']);
    await expect.poll(() => onB).toEqual(['k1']);
  });

  it('announces nothing for a rolled-back change', async () => {
    const onA = heardBy(a, 'rolled-back');
    await db.handle.db
      .transaction(async (tx) => {
        await tx.execute(`select announce_change('rolled-back', 'k')` as never);
        throw new Error('rollback');
      })
      .catch(() => {});
    await db.handle.query(`select announce_change('rolled-back', 'after')`);
    await a.sync();
    expect(onA).toEqual(['after']);
  });

  it('announces tenant config and API key changes from the tables themselves (migration 0020)', async () => {
    const config = heardBy(a, 'tenant-config');
    const keys = heardBy(a, 'api-key');
    const tenantId = '0190a000-0000-7000-8000-00000000c0f1';
    await db.handle.query(`insert into tenants (id, name, slug) values ($1, 'Feed', 'feed-probe')`, [
      tenantId,
    ]);
    await db.handle.query(`update tenants set settings = '{"a": 1}' where id = $1`, [tenantId]);
    await db.handle.query(
      `insert into api_keys (id, tenant_id, name, key_prefix, key_hash) values ($1, $2, 'k', 'wfx_0000', 'hash-1')`,
      ['0190a000-0000-7000-8000-00000000c0f2', tenantId],
    );
    await db.handle.query(`update api_keys set last_used_at = now() where key_hash = 'hash-1'`);
    await db.handle.query(`update api_keys set revoked_at = now() where key_hash = 'hash-1'`);
    await db.handle.query(`update plans set price_monthly = price_monthly where name = 'free'`);
    await a.sync();
    // The insert of a tenant is not a config change; its settings, and any plan change, are.
    expect(config).toEqual([tenantId, '*']);
    // last_used_at is written every few seconds and is not announced; the revocation is.
    expect(keys).toEqual(['hash-1']);
  });

  it.runIf(process.env.DATABASE_URL)(
    'listens again after its connection is cut, and tells the caches to start afresh',
    async () => {
      let resets = 0;
      a.onReset(() => resets++);
      const heard = heardBy(a, 'after-cut');
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where datname = current_database() and application_name = 'guidance-change-feed'`,
        );
        await expect.poll(() => resets, { timeout: 10_000 }).toBeGreaterThan(0);
        await admin.query(`select announce_change('after-cut', 'k')`);
        await a.sync();
        expect(heard).toEqual(['k']);
      } finally {
        await admin.end();
      }
    },
  );
});
