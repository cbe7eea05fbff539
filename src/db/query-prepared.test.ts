import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { openDatabase } from './client.js';
import { isCachedPlanInvalid } from './errors.js';
import { preparedQuery } from './prepared.js';

describe('prepared statements (preparedQuery)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.handle.query('create table prepared_probe (id int primary key, v int not null)');
    await t.handle.query('insert into prepared_probe values (1, 10), (2, 20)');
  });
  afterAll(() => t.close());

  it('answers as query does, call after call', async () => {
    const text = 'select id, v from prepared_probe where v >= $1 order by id';
    for (const min of [0, 15, 30]) {
      expect(await preparedQuery(t.handle.db, text, [min])).toEqual(await t.handle.query(text, [min]));
    }
  });

  it('runs inside an open transaction: sees its writes and rolls back with it', async () => {
    const count = 'select count(*)::int as n from prepared_probe where v = $1';
    await t.handle.db
      .transaction(async (tx) => {
        await preparedQuery(tx, 'insert into prepared_probe values ($1, $2)', [3, 30]);
        expect(await preparedQuery(tx, count, [30])).toEqual([{ n: 1 }]);
        tx.rollback();
      })
      .catch(() => {});
    expect(await preparedQuery(t.handle.db, count, [30])).toEqual([{ n: 0 }]);
  });

  it('survives a migration that changes a column it returns', async () => {
    // One connection (PGlite has one anyway), so the stale plans are certainly met.
    const one = t.url ? await openDatabase({ databaseUrl: t.url, poolSize: 1 }) : t.handle;
    onTestFinished(() => (one === t.handle ? undefined : one.close()));
    // Two statements, so that each path meets its own stale plan first.
    const outside = 'select v from prepared_probe where id = $1';
    const inside = 'select v, id from prepared_probe where id = $1';
    const inTransaction = () => one.db.transaction((tx) => preparedQuery(tx, inside, [2]));
    for (let i = 0; i < 3; i++) {
      expect(await preparedQuery(one.db, outside, [1])).toEqual([{ v: 10 }]);
      expect(await inTransaction()).toEqual([{ v: 20, id: 2 }]);
    }
    await t.handle.query('alter table prepared_probe alter column v type text');
    // Outside a transaction the statement is prepared afresh at once.
    for (let i = 0; i < 3; i++) expect(await preparedQuery(one.db, outside, [1])).toEqual([{ v: '10' }]);
    // Inside one, a stale plan fails that transaction (the error aborts it) and the retry runs
    // the statement prepared afresh. PGlite (one session) always meets it; PostgreSQL may have
    // replanned on its own.
    const first = await inTransaction().catch((err: unknown) => err);
    if (!t.url || !Array.isArray(first)) expect(isCachedPlanInvalid(first)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await inTransaction()).toEqual([{ v: '20', id: 2 }]);
  });
});
