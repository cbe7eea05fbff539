import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { fireDueTimers, seedWaitingEnrollments } from '../test/helpers/journey-seed.js';
import { createStandaloneStore } from '../test/helpers/standalone.js';

/**
 * `npx tsx bench/journey-timers-profile.ts`: where the time of firing timers goes, in process
 * (no server, no HTTP): seeds N enrollments waiting at a WAIT whose timers are all due at one
 * instant, fires them with `fireDueTimers` and prints the rate, the CPU time of this process and
 * of the PostgreSQL backends (from /proc, so a busy shared machine does not blur it).
 *
 * - N (20,000), MODE=postgres|pglite, CONC (chunks at once), CHUNK (timers per chunk);
 * - STATEMENTS=1 (PostgreSQL, best with CONC=1): backend CPU per statement (/proc/<pid>/schedstat
 *   read around each query), and client-side time per statement;
 * - EXPLAIN=1 (PostgreSQL): the plans of the second chunk's statements, with EXPLAIN ANALYZE
 *   figures and per-trigger times (auto_explain, sent back as notices);
 * - PROFILE=<file.cpuprofile>: a CPU profile of this process while firing.
 * BENCH_DATABASE_URL as for bench/journeys.ts.
 */
const N = Number(process.env.N ?? 20_000);
const mode = process.env.MODE ?? 'postgres';
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type Totals = Map<string, { n: number; ms: number }>;
const add = (totals: Totals, key: string, ms: number) => {
  const s = totals.get(key) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += ms;
  totals.set(key, s);
};
const print = (label: string, totals: Totals) => {
  for (const [k, v] of [...totals].sort((a, b) => b[1].ms - a[1].ms))
    console.log(`${label} ${v.ms.toFixed(0).padStart(6)} ms ${String(v.n).padStart(4)}× ${k}`);
};

let backendPids: number[] = [];
const backendNs = () =>
  backendPids.reduce((sum, pid) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      return sum;
    }
  }, 0);
const clientMs: Totals = new Map();
const backendMs: Totals = new Map();
const plans: string[] = [];

if (process.env.STATEMENTS || process.env.EXPLAIN) {
  // Wraps every pg query: client-side time and backend CPU per statement, plans sent as notices.
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  proto.query = function (this: pg.Client & { noticed?: boolean }, ...args: unknown[]) {
    if (!this.noticed) {
      this.noticed = true;
      this.on('notice', (n) => {
        if (String(n.message).includes('duration:')) plans.push(String(n.message));
      });
    }
    const first = args[0] as string | { text: string };
    const text = (typeof first === 'string' ? first : first.text).replace(/\s+/g, ' ').slice(0, 70);
    const started = performance.now();
    const ns = backendPids.length > 0 ? backendNs() : 0;
    const result = query.apply(this, args) as Promise<unknown> | undefined;
    // (pg-pool's own calls pass a callback and get no promise: not counted.)
    result?.then(
      () => {
        add(clientMs, text, performance.now() - started);
        if (backendPids.length > 0) add(backendMs, text, (backendNs() - ns) / 1e6);
      },
      () => {},
    );
    return result;
  };
}

const store = await createStandaloneStore({ serverUrl: mode === 'postgres' ? pgUrl : undefined });
let db = await store.open();
try {
  const due = Date.now() + 3_600_000;
  const seedStart = performance.now();
  const seeded = await seedWaitingEnrollments(db, store.tenantId, N, () => due, { chunk: 10_000 });
  console.log(`seeded ${N} in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
  let pids: number[] = [];
  if (mode === 'postgres') {
    if (process.env.EXPLAIN) {
      const name = new URL(store.env.DATABASE_URL!).pathname.slice(1);
      for (const setting of [
        `session_preload_libraries = 'auto_explain'`,
        'auto_explain.log_min_duration = 0',
        'auto_explain.log_analyze = on',
        'auto_explain.log_triggers = on',
        'auto_explain.log_buffers = on',
        'auto_explain.log_level = notice',
      ])
        await db.query(`alter database ${name} set ${setting}`);
      await db.close();
      db = await store.open();
    }
    // Every pool connection opened, so that their backends can be watched.
    await Promise.all(Array.from({ length: 4 }, () => db.query('select pg_sleep(0.05)')));
    pids = (
      await db.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`,
      )
    ).map((r) => r.pid);
  }
  const inspector = process.env.PROFILE ? new Session() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.start');
  }
  backendPids = pids;
  const backend0 = backendNs();
  clientMs.clear();
  plans.length = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const fired = await fireDueTimers(
    { database: db, clock: () => due },
    {
      ...(process.env.CHUNK ? { chunk: Number(process.env.CHUNK) } : {}),
      ...(process.env.CONC ? { concurrency: Number(process.env.CONC) } : {}),
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const backendSeconds = (backendNs() - backend0) / 1e9;
  backendPids = [];
  if (inspector) {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(process.env.PROFILE!, JSON.stringify(profile));
  }
  const [row] = await db.query<{ n: number }>(
    'select count(*)::int as n from journey_enrollments where journey_id = $1 and current_node_id = $2',
    [seeded.journeyId, seeded.w2],
  );
  console.log(
    `${mode}: fired ${fired} in ${seconds.toFixed(2)} s = ${Math.round(fired / seconds)}/s (${row!.n} advanced)`,
  );
  const perTimer = (s: number) => `${((s * 1e6) / fired).toFixed(0)} µs/timer`;
  const nodeSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(`cpu: this process ${nodeSeconds.toFixed(2)} s (${perTimer(nodeSeconds)})`);
  if (mode === 'postgres')
    console.log(`cpu: postgres backends ${backendSeconds.toFixed(2)} s (${perTimer(backendSeconds)})`);
  if (mode === 'postgres' && process.env.STATEMENTS) {
    // Row writes per table (HOT: the update stayed on its page, no new index entries). The
    // backends publish their counts at most once a second.
    await new Promise((r) => setTimeout(r, 1_500));
    const tables = await db.query<Record<string, string>>(
      `select relname, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot, n_tup_del as del
       from pg_stat_user_tables where relname like 'journey%' and n_tup_ins + n_tup_upd + n_tup_del > 0
       order by relname`,
    );
    for (const t of tables)
      console.log(`rows ${t.relname}: ins ${t.ins} upd ${t.upd} (hot ${t.hot}) del ${t.del}`);
  }
  print('backend cpu', backendMs);
  print('client', clientMs);
  if (process.env.EXPLAIN)
    for (const p of plans.slice(7, 16)) console.log(p.replace(/\{[0-9a-f,-]{200,}\}/g, '{…}'));
} finally {
  await db.close();
  await store.destroy();
}
