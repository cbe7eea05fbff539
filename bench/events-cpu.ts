/**
 * CPU per processed event: ingests SDK batches like the side-by-side harness's (50 events, the
 * spec's types, a distinct userId each, flow ids in properties) through the real HTTP layer, then
 * times one processing run over them with `process.cpuUsage()` (user + system of this process,
 * which on PGlite includes the database's own work on this thread) and the garbage collector's
 * pauses. Rounds alternate the two paths processing has: batches handed over in memory by the
 * writer (the normal path) and batches read back from the event log (recovery after a crash, or
 * batches another instance accepted), so both figures come from the same run.
 *
 *   npx tsx bench/events-cpu.ts                      # PGlite in memory
 *   DATABASE_URL=postgres://… npx tsx bench/events-cpu.ts   # a fresh database on that server
 *
 * Knobs: BATCHES (100 per ingestion; at most 100, the hand-over queue's 5,000 events, for the
 * memory path to be that alone), REPEATS (20 ingestions and processing runs per round), ROUNDS (5), EFFECTS=1 (each effect's own CPU per event), PROFILE=1.
 */
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { apiKeys, users } from '../src/db/schema/index.js';
import { createDeps } from '../src/deps.js';
import type { EventEffect } from '../src/modules/events/effect.js';
import { processPendingEvents } from '../src/modules/events/processor.js';
import { allModules } from '../src/modules/index.js';
import { provisionTenant } from '../src/modules/tenants/provision.js';
import { randomHex, sha256 } from '../src/platform/crypto.js';
import { newId } from '../src/platform/ids.js';
import { testConfig } from '../test/helpers/config.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { startParseOnlyAnchor } from './parse-only-anchor.js';

const BATCHES = Number(process.env.BATCHES ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const REPEATS = Number(process.env.REPEATS ?? 20);
const TYPES = ['STEP_VIEWED', 'CLICK', 'PAGE_VIEW', 'STEP_COMPLETED', 'CUSTOM'];

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

// No forced collections (`--expose-gc`): a full collection before each round deoptimized the
// effects' optimized code ("weak objects") and tripled the figures (bench/RESULTS.md, 2026-12-02).
const rss = () => {
  const m = process.memoryUsage();
  const mib = (n: number) => (n / 2 ** 20).toFixed(0);
  return `${mib(m.rss)} MiB (JS heap ${mib(m.heapUsed)}/${mib(m.heapTotal)}, external ${mib(m.external)}, array buffers ${mib(m.arrayBuffers)})`;
};
const rssAtStart = rss();
/** PGLITE_DIR: a file-backed PGlite (as the server runs) instead of an in-memory one. */
const db = process.env.PGLITE_DIR ? await fileDatabase(process.env.PGLITE_DIR) : await createTestDatabase();
async function fileDatabase(dir: string) {
  const handle = await openDatabase({ dataDir: dir });
  await migrate(handle);
  return { handle, url: undefined, close: () => handle.close() };
}
const deps = createDeps(testConfig({ databaseUrl: db.url, logLevel: 'warn' }), db.handle, {
  modules: allModules,
});
const app = await buildApp(deps);
await app.ready();
const key = `wfx_${randomHex(32)}`;
await deps.database.db.transaction(async (tx) => {
  const userId = newId();
  const email = `owner-${randomHex(4)}@example.com`;
  await tx.insert(users).values({ id: userId, email, name: 'Owner' });
  const { tenant } = await provisionTenant(tx, {
    name: 'Bench',
    owner: { userId, email },
    plan: 'enterprise',
  });
  await tx.insert(apiKeys).values({
    id: newId(),
    tenantId: tenant.id,
    name: 'bench',
    keyHash: sha256(key),
    keyPrefix: key.slice(0, 12),
  });
});
const t = { deps, inject: app.inject.bind(app) };
const flowIds = Array.from(
  { length: 10 },
  (_, i) => `0190f3a2-0000-7000-8000-${String(i).padStart(12, '0')}`,
);

function body(): string {
  const now = Date.now();
  const events = Array.from({ length: 50 }, (_, k) => ({
    type: TYPES[k % TYPES.length],
    name: `flow_step_seen_button_click_${k}`,
    userId: `user_8f3a2c1e-4b5d-4e6f-9a7b-1000000000${String(k).padStart(2, '0')}`,
    sessionId: 'sess_2b7c9d4e5f6a7b8c',
    timestamp: new Date(now - k * 1000).toISOString(),
    properties: {
      url: 'https://app.example.com/projects/42',
      flowId: flowIds[k % flowIds.length],
      stepIndex: k % 3,
      browser: 'Chrome 126',
    },
  }));
  return JSON.stringify({ events });
}

async function ingest(): Promise<number> {
  const payload = body();
  let accepted = 0;
  for (let i = 0; i < BATCHES; i += 50) {
    const n = Math.min(50, BATCHES - i);
    const answers = await Promise.all(
      Array.from({ length: n }, () =>
        t.inject({
          method: 'POST',
          url: '/api/sdk/events',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          payload,
        }),
      ),
    );
    for (const a of answers) {
      if (a.statusCode !== 202) throw new Error(`ingest answered ${a.statusCode}: ${a.body}`);
      accepted += a.json().data.accepted as number;
    }
  }
  return accepted;
}

type Path = 'memory' | 'stored';

/** EFFECTS=1: each effect's own CPU (its computing and its statements' encoding and decoding), per event. */
const effectCpu = new Map<string, number>();
const effects: readonly EventEffect[] = process.env.EFFECTS
  ? t.deps.modules.effects.map((e) => ({
      ...e,
      async apply(tx, batches, ctx) {
        const cpu = process.cpuUsage();
        await e.apply(tx, batches, ctx);
        const used = process.cpuUsage(cpu);
        effectCpu.set(e.name, (effectCpu.get(e.name) ?? 0) + used.user + used.system);
      },
    }))
  : t.deps.modules.effects;

/**
 * One round: REPEATS times, ingest BATCHES batches and process them. Only processing is timed,
 * summed over the repeats, so that a round measures enough events (100,000 by default) for the
 * compiler's and collector's background threads to be a steady share rather than a warm-up's.
 */
async function measure(
  path: Path,
): Promise<{ events: number; usPerEvent: number; ingestUs: number; gcPerK: number; wallMs: number }> {
  const total = { events: 0, usPerEvent: 0, ingestUs: 0, gcPerK: 0, wallMs: 0 };
  for (let i = 0; i < REPEATS; i++) {
    const m = await measureOnce(path);
    total.events += m.events;
    total.usPerEvent += m.usPerEvent * m.events;
    total.ingestUs += m.ingestUs * m.events;
    total.gcPerK += m.gcPerK * m.events;
    total.wallMs += m.wallMs;
  }
  if (process.env.EFFECTS) {
    const parts = [...effectCpu].map(([name, us]) => `${name} ${(us / total.events).toFixed(2)}`);
    console.log(`    ${path} effects, µs CPU/event: ${parts.join(', ')}`);
    effectCpu.clear();
  }
  return {
    events: total.events,
    usPerEvent: total.usPerEvent / total.events,
    ingestUs: total.ingestUs / total.events,
    gcPerK: total.gcPerK / total.events,
    wallMs: total.wallMs,
  };
}

async function measureOnce(
  path: Path,
): Promise<{ events: number; usPerEvent: number; ingestUs: number; gcPerK: number; wallMs: number }> {
  if (profiler && process.env.PROFILE === 'ingest') await profiler.post('Profiler.start');
  const ingestCpu = process.cpuUsage();
  const events = await ingest();
  const ingested = process.cpuUsage(ingestCpu);
  if (profiler && process.env.PROFILE === 'ingest')
    addProfile(path, (await profiler.post('Profiler.stop')).profile);
  // The stored path: forget the in-memory hand-over, as a restarted process would have.
  if (path === 'stored') forgetHandoff();
  const gcBefore = gcMs;
  if (profiler && process.env.PROFILE !== 'ingest') await profiler.post('Profiler.start');
  const cpu = process.cpuUsage();
  const started = performance.now();
  await processPendingEvents(t.deps, effects, { maxBatches: 500, targetEvents: 2_500 });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (profiler && process.env.PROFILE !== 'ingest')
    addProfile(path, (await profiler.post('Profiler.stop')).profile);
  // GC entries are delivered after the fact.
  await new Promise((r) => setTimeout(r, 20));
  const [row] = await t.deps.database.query<{ pending: number }>(
    'select count(*)::int as pending from event_batches where processed_at is null',
  );
  if (row?.pending !== 0) throw new Error(`${row?.pending} batches left unprocessed`);
  return {
    events,
    usPerEvent: (used.user + used.system) / events,
    ingestUs: (ingested.user + ingested.system) / events,
    gcPerK: ((gcMs - gcBefore) / events) * 1000,
    wallMs,
  };
}

/** PROFILE=1: self time by function over the processing runs of each path (no ingestion). */
const profiler = process.env.PROFILE ? new Session() : null;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
}
const selfTimes: Record<Path, Map<string, number>> = { memory: new Map(), stored: new Map() };
type Profile = {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
};
function addProfile(path: Path, profile: Profile): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  if (process.env.PROFILE === 'parents') {
    const parent = new Map<number, number>();
    for (const n of profile.nodes as unknown as { id: number; children?: number[] }[])
      for (const c of n.children ?? []) parent.set(c, n.id);
    const count = new Map<string, number>();
    (profile.samples ?? []).forEach((id) => {
      if (byId.get(id)!.functionName !== 'dispatch') return;
      let chain = '';
      let p = parent.get(id);
      for (let k = 0; k < 4 && p !== undefined; k++, p = parent.get(p)) {
        const f = byId.get(p)!;
        chain += ` < ${f.functionName}@${f.url.slice(-30)}:${f.lineNumber}`;
      }
      count.set(chain, (count.get(chain) ?? 0) + 1);
    });
    for (const [c, n] of [...count.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(n, c);
  }
  const totals = selfTimes[path];
  (profile.samples ?? []).forEach((id, i) => {
    const f = byId.get(id)!;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${f.lineNumber + 1}`;
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
}
function printProfile(path: Path): void {
  const totals = [...selfTimes[path].entries()].sort((a, b) => b[1] - a[1]);
  const all = totals.reduce((n, [, v]) => n + v, 0);
  console.log(`self time, ${path} path (${(all / 1000).toFixed(0)} ms sampled):`);
  const groups = new Map<string, number>();
  for (const [name, us] of totals) {
    const g = name.includes('wasm://')
      ? 'PGlite wasm'
      : name.includes('@electric-sql')
        ? 'PGlite js'
        : name.includes('src/')
          ? name.replace(/^.* (src\/[^:]*):.*$/, '$1')
          : name.replace(/ .*$/, '');
    groups.set(g, (groups.get(g) ?? 0) + us);
  }
  for (const [g, us] of [...groups.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14))
    console.log(`  [${((us / all) * 100).toFixed(1).padStart(5)}%] ${g}`);
  for (const [name, us] of totals.slice(0, 25))
    console.log(`  ${((us / all) * 100).toFixed(1).padStart(5)}%  ${name}`);
}

// Loaded by path so that this script also runs on a checkout from before the hand-over (the
// comparison of record: run it on both, one after the other).
const handoff = await import('../src/modules/events/handoff.js').catch(() => null);
function forgetHandoff(): void {
  handoff?.handoffOf(t.deps)?.clear();
}

console.log(
  `events-cpu: ${t.deps.database.kind}, ${REPEATS} × ${BATCHES} batches × 50 events per round, ${ROUNDS} rounds per path`,
);
// Beyond the hand-over queue's bound the "memory" round reads the rest back from the log too.
const queueBound = handoff?.HANDOFF_MAX_EVENTS ?? Number.POSITIVE_INFINITY;
if (BATCHES * 50 > queueBound)
  console.log(
    `  note: ${BATCHES * 50} events per round exceed the hand-over queue (${queueBound}): the memory rounds read the rest back from the log (keep BATCHES ≤ ${Math.floor(queueBound / 50)})`,
  );
// The yardstick (parse-only-anchor.ts), measured before each round's processing: ANCHOR=0 skips it.
const anchor = process.env.ANCHOR === '0' ? 'skipped (ANCHOR=0)' : await startParseOnlyAnchor();
if (typeof anchor === 'string') console.log(`  parse-only yardstick: ${anchor}`);
const anchorUs: number[] = [];
// One warm-up round of each path: JIT, prepared statements, first rows of the rollup tables.
await measure('memory');
await measure('stored');
const results: Record<Path, number[]> = { memory: [], stored: [] };
for (let r = 0; r < ROUNDS; r++) {
  if (typeof anchor !== 'string') {
    const a = await anchor.usPerEvent();
    anchorUs.push(a.usPerEvent);
    console.log(
      `  round ${r + 1} parse-only yardstick: ${a.usPerEvent.toFixed(2)} µs CPU/event (${(a.eventsPerSecond / 1000).toFixed(0)}k events/s with wrk)`,
    );
  }
  for (const path of ['stored', 'memory'] as const) {
    const m = await measure(path);
    results[path].push(m.usPerEvent);
    console.log(
      `  round ${r + 1} ${path.padEnd(6)}: ${m.events} events, ${m.usPerEvent.toFixed(2)} µs CPU/event, ` +
        `(ingestion ${m.ingestUs.toFixed(2)} µs/event through inject), GC ${m.gcPerK.toFixed(1)} ms/1k events, ${(m.events / (m.wallMs / 1000) / 1000).toFixed(0)}k events/s wall, RSS ${rss()}`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const least = (xs: number[]) => Math.min(...xs);
console.log(`RSS: ${rssAtStart} at start, ${rss()} at the end`);
console.log(
  `µs CPU/event, median (least) of ${ROUNDS}: read back from the log ${median(results.stored).toFixed(2)} (${least(results.stored).toFixed(2)}), ` +
    `handed over in memory ${median(results.memory).toFixed(2)} (${least(results.memory).toFixed(2)})`,
);
if (typeof anchor !== 'string') {
  anchor.close();
  // Per round: each path's figure over the yardstick measured just before it.
  const ratios = (path: Path) => results[path].map((us, i) => us / anchorUs[i]!);
  console.log(
    `× parse-only CPU/event (median of per-round ratios; yardstick median ${median(anchorUs).toFixed(2)} µs): ` +
      `read back from the log ${median(ratios('stored')).toFixed(2)}×, handed over in memory ${median(ratios('memory')).toFixed(2)}×`,
  );
}
if (profiler) {
  printProfile('stored');
  printProfile('memory');
}
await app.close();
await deps.close();
await db.close();
