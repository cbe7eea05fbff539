import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.js';

describe('event log storage', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('compresses stored bodies with lz4 wherever the database was built with it (migration 0066)', async () => {
    const [server] = await db.handle.query<{ lz4: boolean }>(
      `select 'lz4' = any (enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
    );
    const [column] = await db.handle.query<{ method: string }>(
      `select attcompression::text as method from pg_attribute
       where attrelid = 'event_batches'::regclass and attname = 'events'`,
    );
    expect(column?.method).toBe(server?.lz4 ? 'l' : '');
  });
});
