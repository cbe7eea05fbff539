import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  PG_TEMPLATE_ENV,
  PGLITE_TEMPLATE_ENV,
  serverDatabaseUrl,
  type TestDatabase,
} from './database.js';

describe('test databases copied from the run’s migrated template', () => {
  let first: TestDatabase;
  let second: TestDatabase;
  beforeAll(async () => {
    first = await createTestDatabase();
    second = await createTestDatabase();
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('the global setup made a template for this database kind', () => {
    expect(process.env[serverDatabaseUrl() ? PG_TEMPLATE_ENV : PGLITE_TEMPLATE_ENV]).toBeTruthy();
  });

  it('a copy holds every migration, and copies are independent of each other', async () => {
    const applied = await first.handle.query<{ n: number }>(
      'select count(*)::int as n from schema_migrations',
    );
    expect(applied[0]?.n).toBeGreaterThan(20);
    await first.handle.query(
      `insert into tenants (id, name, slug) values (gen_random_uuid(), 'Only here', 'only-here')`,
    );
    const inFirst = await first.handle.query<{ n: number }>(
      `select count(*)::int as n from tenants where slug = 'only-here'`,
    );
    const inSecond = await second.handle.query<{ n: number }>(
      `select count(*)::int as n from tenants where slug = 'only-here'`,
    );
    expect([inFirst[0]?.n, inSecond[0]?.n]).toEqual([1, 0]);
  });

  it('an unmigrated database is empty, whatever the template', async () => {
    const bare = await createTestDatabase({ migrated: false });
    try {
      const tables = await bare.handle.query<{ n: number }>(
        `select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
      );
      expect(tables[0]?.n).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
