import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { yieldAfterStatements } from './pglite-turns.js';

/** Event-loop turns (setImmediate callbacks) that run while `work` does. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

// A fresh PGlite boots (initdb in WebAssembly) in each test: seconds on a quiet machine, more on a
// loaded one.
describe('yieldAfterStatements', { timeout: 120_000 }, () => {
  let client: PGlite | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('without it, a run of statements holds the event loop for one turn (why it exists)', async () => {
    client = await PGlite.create('memory://');
    expect(await turnsDuring(() => statements(client!, 100))).toBeLessThan(10);
  });

  it('lets the event loop turn after every statement, inside transactions too', async () => {
    client = await PGlite.create('memory://');
    yieldAfterStatements(client);
    expect(await turnsDuring(() => statements(client!, 100))).toBeGreaterThanOrEqual(100);
    expect(await turnsDuring(() => client!.transaction((tx) => statements(tx, 50)))).toBeGreaterThanOrEqual(
      50,
    );
  });

  it('keeps results and errors as they were', async () => {
    client = await PGlite.create('memory://');
    yieldAfterStatements(client);
    expect((await client.query<{ i: number }>('select $1::int as i', [7])).rows).toEqual([{ i: 7 }]);
    await expect(client.query('select * from no_such_table')).rejects.toThrow(/no_such_table/);
    expect((await client.query<{ ok: boolean }>('select true as ok')).rows).toEqual([{ ok: true }]);
  });
});

/** `n` statements, one after the other, on the instance or in one of its transactions. */
async function statements(db: { query: PGlite['query'] }, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await db.query('select $1::int as i', [i]);
}
