import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';

describe('DatabaseHandle.queryPrepared', () => {
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
      expect(await t.handle.queryPrepared(text, [min])).toEqual(await t.handle.query(text, [min]));
    }
  });

  it('survives a migration that changes a column it returns', async () => {
    const text = 'select v from prepared_probe where id = $1';
    for (let i = 0; i < 3; i++) expect(await t.handle.queryPrepared(text, [1])).toEqual([{ v: 10 }]);
    await t.handle.query('alter table prepared_probe alter column v type text');
    for (let i = 0; i < 3; i++) expect(await t.handle.queryPrepared(text, [1])).toEqual([{ v: '10' }]);
  });
});
