import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { rawQuery } from './raw.js';
import { linesAs, quoted, textRows } from './text-rows.js';

describe('rows as text lines', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('reads back every field as sent: nulls, numbers, JSON text, free text with tabs, newlines, quotes', async () => {
    const free = ['plain', 'tab\there', 'line\nbreak\r\n', 'quote " and \\ backslash', 'ünïcödé ✓', '\u0001'];
    const state = { a: 'x\ty', nested: { b: [1, 'two\n'] }, c: null };
    const rows = free.map((text, i) => [
      `00000000-0000-7000-8000-00000000000${i}`,
      i,
      i === 2 ? null : 1764117000000.5 + i,
      quoted(text),
      i === 3 ? null : quoted(text),
      JSON.stringify(state),
    ]);
    const out = await rawQuery<{
      id: string;
      n: number;
      at: number | null;
      text: string;
      maybe: string | null;
      state: unknown;
    }>(
      db.handle.db,
      `select u.id, u.n, u.at, u.text, u.maybe, u.state
       from ${linesAs('$1', 'u', ['id uuid', 'n int', 'at float8?', 'text quoted', 'maybe quoted?', 'state json'])}
       order by u.n`,
      [textRows(rows)],
    );
    expect(out).toEqual(
      free.map((text, i) => ({
        id: `00000000-0000-7000-8000-00000000000${i}`,
        n: i,
        at: i === 2 ? null : 1764117000000.5 + i,
        text,
        maybe: i === 3 ? null : text,
        state,
      })),
    );
  });
});
