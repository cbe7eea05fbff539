/**
 * How long requests wait on the embedded database while processing works through a backlog.
 * PGlite runs one statement at a time on the server's own thread, so a request-path statement
 * queues behind whatever processing transaction is open. This bench ingests a backlog (BATCHES ×
 * 50 events, processing off), then runs the processing job as the server does (its time budget
 * per chunk, its pauses while requests are being served) until the backlog is processed, while a
 * probe sends every 2 ms an SDK events request of one event (which commits on the request path
 * and so marks ingestion busy, as live traffic does) and a request-path read (the session
 * lookup's kind: a short indexed read). It prints the probe's latency p50/p99/p99.9/max and the
 * processing transactions' durations, for ROUNDS backlogs.
 *
 *   npx tsx bench/pglite-tail.ts            (a file-backed PGlite in a temp dir, as the server runs)
 *
 * Knobs: BATCHES (2000 a run), ROUNDS (2).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../test/helpers/database.js';
import { harnessEventsBody, startInProcessApp } from '../test/helpers/in-process.js';

const BATCHES = Number(process.env.BATCHES ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);

const dir = mkdtempSync(join(tmpdir(), 'pglite-tail-'));
const db = await createTestDatabase({ dataDir: join(dir, 'pg') });
const t = await startInProcessApp({ db, config: { logLevel: 'warn' } });
const { database } = t.deps;

// Processing transactions' durations, from the database handle's own transaction calls.
let transactions: number[] = [];
const transaction = database.db.transaction.bind(database.db);
database.db.transaction = (async (fn: never, config?: never) => {
  const started = performance.now();
  try {
    return await transaction(fn, config);
  } finally {
    transactions.push(performance.now() - started);
  }
}) as typeof database.db.transaction;

const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};
const line = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, p99.9 ${pct(xs, 99.9).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

/** One backlog processed as the job does, with the probe running; prints its figures. */
async function run(label: string): Promise<void> {
  await t.postEvents(harnessEventsBody(), BATCHES);
  transactions = [];
  const posts: number[] = [];
  const reads: number[] = [];
  const oneEvent = harnessEventsBody(1);
  let processing = true;
  const probe = (async () => {
    while (processing) {
      let started = performance.now();
      await t.postEvents(oneEvent, 1);
      posts.push(performance.now() - started);
      started = performance.now();
      await database.query('select id from tenants where id = $1', [t.tenantId]);
      reads.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const started = performance.now();
  // The job, run again (as its wakes do) until the backlog (the 50-event batches) is processed.
  for (;;) {
    await t.runJob('event-processor');
    const [row] = await database.query<{ n: number }>(
      'select count(*)::int as n from event_batches where processed_at is null and event_count > 1',
    );
    if (!row?.n) break;
  }
  const elapsed = performance.now() - started;
  processing = false;
  await probe;
  console.log(
    `${label}: ${BATCHES * 50} events in ${(elapsed / 1000).toFixed(1)} s (${((BATCHES * 50) / (elapsed / 1000) / 1000).toFixed(0)}k events/s) under the probe`,
  );
  console.log(`  probe, SDK events request of one event (${posts.length}): ${line(posts)}`);
  console.log(`  probe, request-path read (${reads.length}): ${line(reads)}`);
  console.log(`  processing transactions (${transactions.length}): ${line(transactions)}`);
}

console.log(`pglite-tail: ${BATCHES} batches of 50 events per run`);
for (let r = 1; r <= ROUNDS; r++) await run(`round ${r}`);
await t.close();
await db.close();
rmSync(dir, { recursive: true, force: true });
