import { PGlite, protocol } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from './errors.js';
import { bindMessage, pglitePrepared } from './pglite-prepared.js';

describe('pglitePrepared', () => {
  let client: PGlite;
  let queryPrepared: ReturnType<typeof pglitePrepared>['query'];

  beforeAll(async () => {
    client = await PGlite.create('memory://');
    await client.exec(`create table things (
      id uuid primary key, name text not null unique, tags text[] not null default '{}',
      data jsonb, at timestamptz, n int)`);
    queryPrepared = pglitePrepared(client).query;
  });
  afterAll(() => client.close());

  const INSERT = `insert into things (id, name, tags, data, at, n) values ($1, $2, $3, $4, $5, $6)
    returning id, name, tags, data, at, n`;

  it('serializes parameters by their declared types and parses the rows as query does', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const id = '01a20195-73ce-7233-8a40-7ca0af8b3bb2';
    const [row] = await queryPrepared(INSERT, [id, 'it\'s "quoted"', ['a', 'b,c'], { k: [1, 'x'] }, at, 7]);
    expect(row).toEqual({ id, name: 'it\'s "quoted"', tags: ['a', 'b,c'], data: { k: [1, 'x'] }, at, n: 7 });
    const viaQuery = await client.query('select id, name, tags, data, at, n from things where id = $1', [id]);
    expect(viaQuery.rows).toEqual([row]);
  });

  it('binds null and undefined as SQL NULL', async () => {
    const [row] = await queryPrepared<{ data: unknown; at: unknown; n: unknown }>(INSERT, [
      '01a20195-73ce-7233-8a40-7ca0af8b3bb3',
      'nulls',
      [],
      null,
      undefined,
      null,
    ]);
    expect(row).toMatchObject({ data: null, at: null, n: null });
  });

  it('parses a statement once and reuses it', async () => {
    const text = 'select count(*)::int as n from things where name = $1';
    for (let i = 0; i < 3; i++) expect(await queryPrepared(text, ['nulls'])).toEqual([{ n: 1 }]);
    const prepared = await client.query<{ n: number }>(
      'select count(*)::int as n from pg_prepared_statements where statement = $1',
      [text],
    );
    expect(prepared.rows).toEqual([{ n: 1 }]);
  });

  it('reports a database error with its code, and the next statement runs normally', async () => {
    const params = ['01a20195-73ce-7233-8a40-7ca0af8b3bb4', 'nulls', [], null, null, null];
    const err = await queryPrepared(INSERT, params).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(await queryPrepared('select count(*)::int as n from things where name = $1', ['nulls'])).toEqual([
      { n: 1 },
    ]);
  });

  it('rejects a statement that does not parse, without keeping it', async () => {
    await expect(queryPrepared('select from where $1', [1])).rejects.toThrow(/syntax error/);
    await expect(queryPrepared('select from where $1', [1])).rejects.toThrow(/syntax error/);
    expect(await queryPrepared('select $1::int + 1 as n', [1])).toEqual([{ n: 2 }]);
  });

  it('waits for an open transaction instead of running inside it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const transaction = client
      .transaction(async (tx) => {
        await tx.query(
          `insert into things (id, name) values ('01a20195-73ce-7233-8a40-7ca0af8b3bb5', 'in tx')`,
        );
        await held;
        await tx.rollback();
      })
      .catch(() => {});
    await new Promise((r) => setTimeout(r, 10));
    let settled = false;
    const count = queryPrepared<{ n: number }>('select count(*)::int as n from things where name = $1', [
      'in tx',
    ]).finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(settled).toBe(false);
    release();
    await transaction;
    expect(await count).toEqual([{ n: 0 }]);
  });
});

describe('bindMessage', () => {
  it('writes the same bytes as the protocol library, for any text, bytes, empty and null values', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.array(
          fc.option(
            fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.uint8Array({ maxLength: 300 })),
            {
              nil: null,
            },
          ),
          { maxLength: 12 },
        ),
        (statement, values) => {
          const ours = bindMessage(statement, values);
          const theirs = Buffer.from(protocol.serialize.bind({ statement, values }));
          expect(ours.equals(theirs)).toBe(true);
        },
      ),
    );
  });

  it('carries a large body byte for byte to the database', async () => {
    const client = await PGlite.create('memory://');
    const { query } = pglitePrepared(client);
    const body = JSON.stringify({ events: Array.from({ length: 400 }, (_, i) => ({ i, s: 'é€😀\\"\n' })) });
    const [row] = await query<{ same: boolean; n: number }>(
      'select $1::text = $2::text as same, octet_length($1::text) as n',
      [body, body],
    );
    expect(row).toEqual({ same: true, n: Buffer.byteLength(body) });
    await client.close();
  });
});
