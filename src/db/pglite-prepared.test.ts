import { PGlite, protocol, types } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from './errors.js';
import { BYTEA_PARSERS, bindMessage, byteaFromHex, pglitePrepared } from './pglite-prepared.js';

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

describe('bytea results', () => {
  let client: PGlite;
  let runner: ReturnType<typeof pglitePrepared>;

  beforeAll(async () => {
    client = await PGlite.create('memory://', { parsers: BYTEA_PARSERS });
    await client.exec('create table blobs (id int primary key, label text, body bytea, at timestamptz)');
    runner = pglitePrepared(client);
    const raw = client.execProtocolRawStream.bind(client);
    client.execProtocolRawStream = (...args) => {
      rawReads++;
      return raw(...args);
    };
  });
  afterAll(() => client.close());

  /** Statements run through the raw protocol (the binary path). */
  let rawReads = 0;
  const hex = (bytes: Uint8Array | null) => bytes && Buffer.from(bytes).toString('hex');
  const SELECT = 'select id, label, body, at from blobs where id = any($1::int[]) order by id';
  const edges = [
    new Uint8Array(0),
    Uint8Array.from([0x00]),
    Uint8Array.from([0x5c, 0x78, 0x00, 0x5c, 0x5c, 0xff, 0x80, 0x0a, 0x27]),
    Uint8Array.from({ length: 256 }, (_, i) => i),
  ];

  /** Stores `bodies` (the statement's bytea parameter is sent in binary) and reads them back both ways. */
  async function roundTrip(bodies: (Uint8Array | null)[]) {
    await client.exec('delete from blobs');
    const at = new Date('2026-11-26T14:00:00.123Z');
    for (const [i, body] of bodies.entries())
      await runner.query('insert into blobs (id, label, body, at) values ($1, $2, $3, $4)', [
        i,
        `é${i}`,
        body,
        at,
      ]);
    const ids = bodies.map((_, i) => i);
    const expected = bodies.map((body, i) => ({ id: i, label: `é${i}`, body: hex(body), at }));
    const rawBefore = rawReads;
    const inTransaction = await client.transaction(() =>
      runner.inTransaction<{ body: Uint8Array | null }>(SELECT, [ids]),
    );
    expect(rawReads).toBe(rawBefore + 1);
    const outside = await runner.query<{ body: Uint8Array | null }>(SELECT, [ids]);
    const viaQuery = (await client.query<{ body: Uint8Array | null }>(SELECT, [ids])).rows;
    for (const rows of [inTransaction, outside, viaQuery]) {
      expect(rows.map((r) => ({ ...r, body: hex(r.body) }))).toEqual(expected);
    }
  }

  it('reads bytes back as they were stored, in binary format inside a transaction and as hex outside', async () => {
    await roundTrip([...edges, null]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.uint8Array({ maxLength: 40_000 }), { nil: null }), { maxLength: 6 }),
        (bodies) => roundTrip(bodies),
      ),
      { numRuns: 40 },
    );
  });

  it('reads a result larger than one write of the database, and no row at all', async () => {
    const big = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 256);
    await roundTrip([big, big, edges[2]!]);
    await client.transaction(async () => {
      expect(await runner.inTransaction(SELECT, [[-1]])).toEqual([]);
    });
  });

  it('reports an error of a binary statement as PGlite does, with its code', async () => {
    const failing = 'select id, body, 1 / (id - $1::int) as n from blobs where id = $1::int';
    await roundTrip([edges[1]!]);
    const err = await client.transaction(() => runner.inTransaction(failing, [0])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: '22012', message: 'division by zero', query: failing });
    expect(await runner.query('select id, body from blobs where id = $1::int', [0])).toEqual([
      { id: 0, body: Buffer.from(edges[1]!) },
    ]);
  });

  it('parses hex text into the same bytes as PGlite', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 500 }), (bytes) => {
        const hex = `\\x${Buffer.from(bytes).toString('hex')}`;
        expect(Uint8Array.from(byteaFromHex(hex))).toEqual(types.parsers[types.BYTEA]!(hex, types.BYTEA));
      }),
    );
  });
});
