/**
 * How long a request-path statement waits on the embedded database while processing works
 * through a backlog. PGlite runs one statement at a time on the server's own thread, so a read
 * of the request path queues behind whatever processing transaction is open. This bench ingests
 * a backlog (BATCHES × 50 events, processing off), then runs the processing job as the server
 * does (its chunk sizing, its pauses while requests are being served) while a probe sends a
 * request-path statement (the session lookup's kind: a short indexed read) every 2 ms and marks
 * the hot path busy, as live traffic does. It prints the probe's latency p50/p99/p99.9/max and
 * the processing transactions' durations. The figures are wall times on a shared machine, so runs
 * of the fixed chunk size of before and of the time-budgeted chunks alternate in one process.
 *
 *   npx tsx bench/pglite-tail.ts            (a file-backed PGlite in a temp dir, as the server runs)
 *
 * Knobs: BATCHES (2000 a run), ROUNDS (2).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { apiKeys, users } from '../src/db/schema/index.js';
import { createDeps } from '../src/deps.js';
import { jobProcessingOptions, processPendingEvents } from '../src/modules/events/processor.js';
import { allModules } from '../src/modules/index.js';
import { provisionTenant } from '../src/modules/tenants/provision.js';
import { randomHex, sha256 } from '../src/platform/crypto.js';
import { newId } from '../src/platform/ids.js';
import { testConfig } from '../test/helpers/config.js';

const BATCHES = Number(process.env.BATCHES ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const TYPES = ['STEP_VIEWED', 'CLICK', 'PAGE_VIEW', 'STEP_COMPLETED', 'CUSTOM'];

const dir = mkdtempSync(join(tmpdir(), 'pglite-tail-'));
const database = await openDatabase({ dataDir: join(dir, 'pg') });
await migrate(database);
const deps = createDeps(testConfig({ logLevel: 'warn' }), database, { modules: allModules });
const app = await buildApp(deps);
await app.ready();
const key = `wfx_${randomHex(32)}`;
let tenantId = '';
await database.db.transaction(async (tx) => {
  const userId = newId();
  const email = `owner-${randomHex(4)}@example.com`;
  await tx.insert(users).values({ id: userId, email, name: 'Owner' });
  const { tenant } = await provisionTenant(tx, {
    name: 'Bench',
    owner: { userId, email },
    plan: 'enterprise',
  });
  tenantId = tenant.id;
  await tx.insert(apiKeys).values({
    id: newId(),
    tenantId: tenant.id,
    name: 'bench',
    keyHash: sha256(key),
    keyPrefix: key.slice(0, 12),
  });
});

const flowIds = Array.from(
  { length: 10 },
  (_, i) => `0190f3a2-0000-7000-8000-${String(i).padStart(12, '0')}`,
);
const payload = JSON.stringify({
  events: Array.from({ length: 50 }, (_, k) => ({
    type: TYPES[k % TYPES.length],
    name: `flow_step_seen_button_click_${k}`,
    userId: `user_8f3a2c1e-4b5d-4e6f-9a7b-1000000000${String(k).padStart(2, '0')}`,
    timestamp: new Date(Date.now() - k * 1000).toISOString(),
    properties: { url: 'https://app.example.com/projects/42', flowId: flowIds[k % 10], stepIndex: k % 3 },
  })),
});
async function ingest(): Promise<void> {
  for (let i = 0; i < BATCHES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, BATCHES - i) }, () =>
        app.inject({
          method: 'POST',
          url: '/api/sdk/events',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          payload,
        }),
      ),
    );
  }
}

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
async function run(label: string, fixedEmbeddedChunks: boolean): Promise<void> {
  await ingest();
  transactions = [];
  const probes: number[] = [];
  let processing = true;
  const probe = (async () => {
    while (processing) {
      deps.hotPathActiveAt = Date.now();
      const started = performance.now();
      await database.query('select id from tenants where id = $1', [tenantId]);
      probes.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const started = performance.now();
  // The job's options, run again (as its wakes do) until the backlog is gone.
  for (;;) {
    await processPendingEvents(
      deps,
      deps.modules.effects,
      jobProcessingOptions(deps, { fixedEmbeddedChunks }),
    );
    const [row] = await database.query<{ n: number }>(
      'select count(*)::int as n from event_batches where processed_at is null',
    );
    if (!row?.n) break;
  }
  const elapsed = performance.now() - started;
  processing = false;
  await probe;
  console.log(
    `${label}: ${BATCHES * 50} events in ${(elapsed / 1000).toFixed(1)} s (${((BATCHES * 50) / (elapsed / 1000) / 1000).toFixed(0)}k events/s) under the probe`,
  );
  console.log(`  request-path probe (${probes.length} reads): ${line(probes)}`);
  console.log(`  processing transactions (${transactions.length}): ${line(transactions)}`);
}

console.log(`pglite-tail: ${BATCHES} batches of 50 events per run, runs alternating`);
for (let r = 1; r <= ROUNDS; r++) {
  await run(`round ${r}, fixed 400-event chunks (before)`, true);
  await run(`round ${r}, chunks within ${'10'} ms (now)`, false);
}
await app.close();
await deps.close();
await database.close();
rmSync(dir, { recursive: true, force: true });
