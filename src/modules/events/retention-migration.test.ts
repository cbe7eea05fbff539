import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.js';
import { listMigrations, migrate } from '../../db/migrate.js';
import { newId } from '../../platform/ids.js';

/**
 * Migration 0096 on a log that already holds rows (both databases): every row comes through with
 * every column, on PostgreSQL in the partition of its month (none in the default one), with the
 * months ahead ready and the key (id, received_at).
 */

const DAY_MS = 86_400_000;
let db: TestDatabase;
const before = listMigrations().filter((m) => m.name < '0096');
const tenant = newId();
type Row = {
  id: string;
  received_at: string;
  events: string | null;
  events_br: string | null;
  processed_at: string | null;
  attempts: number;
  last_error: string | null;
  source: string;
};
const read = (where = '') =>
  db.handle.query<Row>(
    `select id, received_at::text, events, encode(events_br, 'hex') as events_br, processed_at::text, attempts,
       last_error, source from event_batches ${where} order by id`,
  );
let stored: Row[];

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  await migrate(db.handle, before);
  const now = Date.now();
  const postgres = db.handle.kind === 'postgres';
  for (const [i, age] of [0, 1, 40, 95, 200, 420].entries()) {
    await db.handle.query(
      `insert into event_batches (id, tenant_id, correlation_id, api_key_id, received_at, event_count, events, events_br,
         source, processed_at, attempts, last_error)
       values ($1, $2, $3, null, $4, 2, $5, $6, $7, $8, $9, $10)`,
      [
        newId(),
        tenant,
        newId(),
        new Date(now - age * DAY_MS - i * 1000).toISOString(),
        postgres ? `[{"type":"CUSTOM","name":"e${i}"}]` : null,
        postgres ? null : Buffer.from([1, 2, i]),
        i % 2 ? 'server' : 'sdk',
        i % 3 ? new Date(now).toISOString() : null,
        i % 3,
        i === 2 ? 'boom' : null,
      ],
    );
  }
  stored = await read();
  await migrate(db.handle);
}, 120_000);
afterAll(() => db?.close());

describe('migration 0096 on an existing log', () => {
  it('keeps every row with every column', async () => {
    expect(stored).toHaveLength(6);
    expect(await read()).toEqual(stored);
  });

  it('makes (id, received_at) the key', async () => {
    const [key] = await db.handle.query<{ def: string }>(
      `select pg_get_constraintdef(oid) as def from pg_constraint
       where conrelid = 'event_batches'::regclass and contype = 'p'`,
    );
    expect(key?.def).toBe('PRIMARY KEY (id, received_at)');
  });

  it('on PostgreSQL: each row in its month’s partition, from the oldest month to two months ahead', async () => {
    if (db.handle.kind !== 'postgres') return;
    const rows = await db.handle.query<{ part: string; month: string }>(
      `select tableoid::regclass::text as part, to_char(received_at at time zone 'UTC', 'YYYY_MM') as month
       from event_batches`,
    );
    for (const r of rows) expect(r.part).toBe(`event_batches_p${r.month}`);
    const parts = await db.handle.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent = 'event_batches'::regclass order by 1`,
    );
    const months = parts.map((p) => p.name).filter((n) => n !== 'event_batches_default');
    const ahead = new Date();
    ahead.setUTCDate(1);
    ahead.setUTCMonth(ahead.getUTCMonth() + 2);
    expect(months.at(-1)).toBe(`event_batches_p${ahead.toISOString().slice(0, 7).replace('-', '_')}`);
    expect(months[0]).toBe(`event_batches_p${[...rows.map((r) => r.month)].sort()[0]}`);
    // Every month in between, none missing.
    const index = (name: string) => Number(name.slice(15, 19)) * 12 + Number(name.slice(20, 22));
    expect(months.map(index)).toEqual(months.map((_, i) => index(months[0]!) + i));
    expect(parts.map((p) => p.name)).toContain('event_batches_default');
    expect(await db.handle.query('select 1 from event_batches_default')).toEqual([]);
  });
});
