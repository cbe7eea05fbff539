import { messages, PGlite, protocol } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { preparedQuery } from './prepared.js';
import { rawQuery } from './raw.js';

/**
 * What src/db relies on inside its libraries, beyond their public APIs. The versions are pinned
 * exactly in package.json; an upgrade that breaks one of these assumptions fails here, by name,
 * instead of somewhere deep in the hot path:
 * - PGlite internals used by pglite-prepared.ts (named prepared statements through the wire
 *   protocol, run under PGlite's own locks) and by prepared.ts (a patched `transaction`);
 * - drizzle's private `session.client` on a database and on a transaction (raw.ts, prepared.ts).
 */
const PGLITE_INTERNALS = [
  'execProtocolStream',
  'execProtocolRawStream',
  '_runExclusiveQuery',
  '_runExclusiveTransaction',
  '_checkReady',
  'syncToFs',
  'transaction',
] as const;

describe('library internals the db layer relies on (pinned versions)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('PGlite still has the internals pglite-prepared.ts calls', async () => {
    const client = await PGlite.create('memory://');
    try {
      const missing = PGLITE_INTERNALS.filter(
        (name) => typeof (client as unknown as Record<string, unknown>)[name] !== 'function',
      );
      expect(missing, `PGlite changed: src/db/pglite-prepared.ts needs ${missing.join(', ')}`).toEqual([]);
      const withCodecs = client as unknown as { serializers?: object; parsers?: object };
      expect(typeof withCodecs.serializers, 'PGlite changed: no `serializers` map').toBe('object');
      expect(typeof withCodecs.parsers, 'PGlite changed: no `parsers` map').toBe('object');
      // The binary bytea path reads error responses with PGlite's own protocol parser.
      expect(typeof protocol.Parser, 'PGlite changed: no protocol.Parser').toBe('function');
      expect(typeof messages.DatabaseError, 'PGlite changed: no messages.DatabaseError').toBe('function');
    } finally {
      await client.close();
    }
  });

  it('drizzle still keeps its driver client on `session.client`, on the database and in a transaction', async () => {
    const client = (exec: object) => (exec as { session?: { client?: unknown } }).session?.client;
    expect(client(db.handle.db), 'drizzle changed: no session.client on the database').toBeDefined();
    await db.handle.db.transaction(async (tx) => {
      expect(client(tx), 'drizzle changed: no session.client in a transaction').toBeDefined();
      // Both helpers work inside drizzle's transaction, on this driver.
      expect(await rawQuery<{ n: number }>(tx, 'select 1::int as n')).toEqual([{ n: 1 }]);
      expect(await preparedQuery<{ n: number }>(tx, 'select 2::int as n', [])).toEqual([{ n: 2 }]);
    });
  });

  it('a prepared statement inside a transaction sees that transaction (the patched PGlite transaction)', async () => {
    await db.handle.db.transaction(async (tx) => {
      await rawQuery(tx, 'create temporary table internals_probe (n int) on commit drop');
      await rawQuery(tx, 'insert into internals_probe values (41)');
      expect(
        await preparedQuery<{ n: number }>(tx, 'select max(n)::int as n from internals_probe', []),
      ).toEqual([{ n: 41 }]);
    });
  });
});
