/**
 * CPU per processed event: ingests SDK batches like the side-by-side harness's (50 events, the
 * spec's types, a distinct userId each, flow ids in properties) through the real HTTP layer, then
 * times one processing run over them with `process.cpuUsage()` (user + system of this process,
 * which on PGlite includes the database's own work on this thread) and the garbage collector's
 * pauses. Rounds alternate the two paths processing has: batches handed over in memory by the
 * writer (the normal path) and batches read back from the event log (recovery after a crash, or
 * batches another instance accepted: here a second instance with `ROLE=web` on the same database
 * ingests them), so both figures come from the same run. The app is the test helpers' in-process
 * one (test/helpers/in-process.ts), processing run as its job runs it, with fixed chunks.
 *
 *   npx tsx bench/events-cpu.ts                      # PGlite in memory
 *   DATABASE_URL=postgres://… npx tsx bench/events-cpu.ts   # a fresh database on that server
 *
 * Knobs: BATCHES (100 per ingestion; at most 100, the hand-over queue's 5,000 events, for the
 * memory path to be that alone), REPEATS (20 ingestions and processing runs per round), ROUNDS (5), EFFECTS=1 (each effect's own CPU per event), PROFILE=1.
 */
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import type { EventEffect } from '../src/modules/events/index.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { harnessEventsBody, startInProcessApp } from '../test/helpers/in-process.js';
import { startParseOnlyAnchor } from './parse-only-anchor.js';

const BATCHES = Number(process.env.BATCHES ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const REPEATS = Number(process.env.REPEATS ?? 20);
/** The hand-over queue's bound, in events (HANDOFF_MAX_EVENTS, src/modules/events/handoff.ts). */
const HANDOFF_EVENTS = 5_000;

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
const db = await createTestDatabase(process.env.PGLITE_DIR ? { dataDir: process.env.PGLITE_DIR } : {});
/** Ingests and processes: what it accepts is handed over to its processing in memory. */
const t = await startInProcessApp({ db, config: { logLevel: 'warn' } });
/**
 * A second instance on the same database with `ROLE=web` (it only ingests): what it accepts is
 * in the log only, so processing reads it back, as after a restart or for another instance's batches.
 */
const web = await startInProcessApp({ db, config: { logLevel: 'warn', role: 'web' }, tenant: t });

type Path = 'memory' | 'stored';

async function ingest(path: Path): Promise<number> {
  return (path === 'memory' ? t : web).postEvents(harnessEventsBody(), BATCHES);
}

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
  const events = await ingest(path);
  const ingested = process.cpuUsage(ingestCpu);
  if (profiler && process.env.PROFILE === 'ingest')
    addProfile(path, (await profiler.post('Profiler.stop')).profile);
  const gcBefore = gcMs;
  if (profiler && process.env.PROFILE !== 'ingest') await profiler.post('Profiler.start');
  const cpu = process.cpuUsage();
  const started = performance.now();
  await t.processEvents(effects, { maxBatches: 500, targetEvents: 2_500 });
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

console.log(
  `events-cpu: ${t.deps.database.kind}, ${REPEATS} × ${BATCHES} batches × 50 events per round, ${ROUNDS} rounds per path`,
);
// Beyond the hand-over queue's bound the "memory" round reads the rest back from the log too.
if (BATCHES * 50 > HANDOFF_EVENTS)
  console.log(
    `  note: ${BATCHES * 50} events per round exceed the hand-over queue (${HANDOFF_EVENTS}): the memory rounds read the rest back from the log (keep BATCHES ≤ ${HANDOFF_EVENTS / 50})`,
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
await web.close();
await t.close();
await db.close();
