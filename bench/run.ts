import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { freePort, type ServerProcess, startServer } from '../test/helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from '../test/helpers/standalone.js';
import { benchAnalytics } from './analytics.js';
import { type LoadResult, load } from './load.js';
import { seedDelivery } from './seed-delivery.js';

/**
 * `npm run bench`: measures the service against a bare Fastify hello-world and a parse-only
 * POST of the same events body, in one run, on PostgreSQL (BENCH_DATABASE_URL, default the
 * local server) and on the embedded PGlite; prints every figure with its ratio and writes
 * bench/RESULTS-autocannon.md. Every figure is the median of BENCH_REPEATS runs (default 3) of
 * BENCH_SECONDS each (default 10); BENCH_ANALYTICS_EVENTS sets the analytics fixture size
 * (default 10 million; 0 skips it).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const analyticsEvents = Number(process.env.BENCH_ANALYTICS_EVENTS ?? 10_000_000);

const EVENTS_PER_REQUEST = 50;
const eventsBody = JSON.stringify({
  events: Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({
    type: i % 5 === 0 ? 'PAGE_VIEW' : 'CLICK',
    userId: `user-${i % 7}`,
    url: 'https://app.example.com/dashboard',
    timestamp: new Date().toISOString(),
    properties: { x: 100 + i, y: 200 + i, selector: `#button-${i % 4}`, tagName: 'BUTTON', text: 'Save' },
    metadata: { sdkVersion: '1.4.0', device: 'desktop' },
  })),
});

interface Row {
  scenario: string;
  mode: string;
  rps: number;
  runs: number[];
  eventsPerSecond?: number;
  p50: number;
  p99: number;
  ratio: string;
  target: string;
  errors: number;
}
const rows: Row[] = [];
const notes: string[] = [];

function record(
  scenario: string,
  mode: string,
  r: LoadResult,
  ratio: string,
  target: string,
  perRequest = 0,
) {
  const row: Row = {
    scenario,
    mode,
    rps: r.rps,
    runs: r.runs,
    p50: r.p50,
    p99: r.p99,
    ratio,
    target,
    errors: r.errors + r.non2xx,
  };
  if (perRequest) row.eventsPerSecond = r.rps * perRequest;
  rows.push(row);
  console.log(
    `${scenario.padEnd(34)} ${mode.padEnd(9)} ${Math.round(r.rps).toString().padStart(7)} req/s` +
      `${
        perRequest
          ? ` ${Math.round(r.rps * perRequest)
              .toString()
              .padStart(8)} ev/s`
          : ''
      }` +
      `  p50 ${r.p50} ms  p99 ${r.p99} ms  ${ratio}  errors ${row.errors}` +
      `  (runs: ${r.runs.map((n) => Math.round(n)).join(', ')} req/s)`,
  );
}

/** The bare Fastify baseline server (`answerBytes`: the size of its constant /answer body). */
async function startBaseline(answerBytes = 0) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/baseline-server.ts', String(port), String(answerBytes)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { url: `http://127.0.0.1:${port}`, child };
}

async function baselines() {
  const { url, child } = await startBaseline();
  const hello = await load({ url: `${url}/hello`, seconds, repeats });
  record('bare Fastify hello-world', '-', hello, '1.00× hello', 'baseline');
  const parse = await load({
    url: `${url}/parse-only`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: eventsBody,
    seconds,
    repeats,
  });
  record(
    'events, parse + validate only',
    '-',
    parse,
    `${(parse.rps / hello.rps).toFixed(2)}× hello`,
    'baseline',
    EVENTS_PER_REQUEST,
  );
  child.kill('SIGTERM');
  return { hello: hello.rps, parse: parse.rps, answer: 0 };
}

/** Bare Fastify answering a constant body of `bytes` (a session answer's size) to the same POST. */
async function answerBaseline(bytes: number, body: string): Promise<number> {
  const { url, child } = await startBaseline(bytes);
  const answer = await load({
    url: `${url}/answer`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    seconds,
    repeats,
  });
  record(
    `bare Fastify, constant ${Math.round(bytes / 1000)} kB answer`,
    '-',
    answer,
    '(session-size)',
    'baseline',
  );
  child.kill('SIGTERM');
  return answer.rps;
}

async function serviceRuns(
  mode: 'postgres' | 'pglite',
  base: { hello: number; parse: number; answer: number },
) {
  const limits = {
    RATE_LIMIT_GLOBAL: '100000000',
    RATE_LIMIT_SDK: '100000000',
    RATE_LIMIT_AUTH: '100000000',
  };
  const store: StandaloneStore = await createStandaloneStore({
    serverUrl: mode === 'postgres' ? pgUrl : undefined,
    env: { LOG_LEVEL: 'warn', ...limits, REDIS_URL: mode === 'postgres' ? redisUrl : '' },
  });
  const sdk = { 'x-api-key': store.apiKey };
  const eventsTarget = mode === 'postgres' ? '≥ 200,000 ev/s, p99 ≤ 50 ms' : '≥ 50,000 ev/s, p99 ≤ 100 ms';
  const postEvents = (url: string, between?: () => Promise<void>) =>
    load({
      url: `${url}/api/sdk/events`,
      method: 'POST',
      headers: { ...sdk, 'content-type': 'application/json' },
      body: eventsBody,
      seconds,
      repeats,
      between,
    });
  let server: ServerProcess | null = null;
  try {
    // Delivery first, on a quiet database: the event runs leave millions of rows behind, and
    // PostgreSQL's autovacuum of them would share the cores with whatever ran next.
    server = await startServer(store.env);
    const config = await load({ url: `${server.url}/api/sdk/config`, headers: sdk, seconds, repeats });
    record('GET /api/sdk/config', mode, config, ratio(config.rps, base.hello, 'hello'), '≥ 0.50× hello');

    const session = await seedDelivery(server.url, store.ownerToken, { items: 100, audiences: 20 });
    const body = JSON.stringify(session.body);
    if (!base.answer) base.answer = await answerBaseline(session.bytes, body);
    const sessions = await load({
      url: `${server.url}/api/sdk/session`,
      method: 'POST',
      headers: { ...sdk, 'content-type': 'application/json' },
      body,
      seconds,
      repeats,
    });
    record(
      'POST /api/sdk/session (100 items, 20 aud.)',
      mode,
      sessions,
      ratio(sessions.rps, base.answer, 'same-size answer'),
      '≥ 5,000 req/s, p99 ≤ 30 ms',
    );
    notes.push(
      `${mode}: each session answer carried ${session.delivered} of ${session.published} published items (${session.bytes.toLocaleString('en-US')} bytes).`,
    );
    await server.stop('SIGTERM');
    server = null;

    if (mode === 'postgres') {
      // Scaled out: this instance only ingests (ROLE=web); processing runs in worker instances.
      server = await startServer({ ...store.env, ROLE: 'web' });
      const ingest = await postEvents(server.url);
      record(
        'events, 50/batch, durable, ROLE=web',
        mode,
        ingest,
        ratio(ingest.rps, base.parse, 'parse-only'),
        eventsTarget,
        50,
      );
      await server.stop('SIGTERM');
      server = null;
    }
    // All in one process: ingestion and processing share the same cores. Each run starts with
    // nothing left to process: first what ROLE=web accepted, then each run's own backlog.
    server = await startServer(store.env);
    const url = server.url;
    if (mode === 'postgres') {
      const backlog = await drain(url, store.ownerToken);
      notes.push(
        `${mode}: what ROLE=web accepted was processed by the ROLE=all instance before its own runs: ${describeDrain(backlog)}`,
      );
    }
    const events = await postEvents(url, async () => {
      await drain(url, store.ownerToken);
    });
    record(
      'events, 50/batch, durable, ROLE=all',
      mode,
      events,
      ratio(events.rps, base.parse, 'parse-only'),
      eventsTarget,
      50,
    );
    const last = await drain(url, store.ownerToken);
    notes.push(
      `${mode} ROLE=all: ${last.total.toLocaleString('en-US')} events processed in total; after the last run stopped, ${describeDrain(last)}`,
    );
  } finally {
    await server?.stop('SIGTERM');
    await store.destroy();
  }
}

const ratio = (value: number, of: number, name: string) => `${(value / of).toFixed(2)}× ${name}`;

interface Drained {
  /** totalEvents of the overview once it stopped moving. */
  total: number;
  /** Events processed meanwhile, and in how many seconds. */
  caughtUp: number;
  seconds: number;
}

/**
 * Waits until processing has caught up with what was accepted, read through the analytics API
 * (totalEvents stops moving for 2 s), so that the next run starts on a quiet machine.
 */
async function drain(url: string, token: string): Promise<Drained> {
  const total = async () => {
    const res = await fetch(`${url}/api/analytics/overview`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await res.json()) as { data: { totalEvents: number } }).data.totalEvents;
  };
  const started = Date.now();
  const atStart = await total();
  let last = atStart;
  let steadySince = Date.now();
  while (Date.now() - steadySince < 2000 && Date.now() - started < 600_000) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await total();
    if (now !== last) {
      last = now;
      steadySince = Date.now();
    }
  }
  return { total: last, caughtUp: last - atStart, seconds: (steadySince - started) / 1000 };
}

const describeDrain = ({ caughtUp, seconds: secs }: Drained) =>
  `${caughtUp.toLocaleString('en-US')} events in ${secs.toFixed(1)} s` +
  (caughtUp && secs
    ? ` (${Math.round(caughtUp / secs).toLocaleString('en-US')} events/s processing with the machine otherwise idle).`
    : '.');

function machineLine(): string {
  const cpu = os.cpus();
  let pg = 'unknown';
  try {
    pg = execSync(`psql "${pgUrl}" -Atc "show server_version"`, { encoding: 'utf8' }).trim();
  } catch {
    // psql missing: leave unknown
  }
  return `${cpu[0]?.model ?? 'cpu'} × ${cpu.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}, PostgreSQL ${pg}`;
}

function writeResults(machine: string, analytics: string[]) {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const table = rows
    .map(
      (r) =>
        `| ${r.scenario} | ${r.mode} | ${fmt(r.rps)} | ${r.eventsPerSecond ? fmt(r.eventsPerSecond) : ''} | ${r.p50} | ${r.p99} | ${r.ratio} | ${r.target} | ${r.errors} | ${r.runs.map(fmt).join(', ')} |`,
    )
    .join('\n');
  const text = `# Benchmark results

Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.
Machine: ${machine}.
Load generator: autocannon, 50 connections, on the same machine. Each figure is the median of ${repeats} runs of ${seconds} s after a 2 s warm-up (p50 and p99 are the median run's); the last column lists every run.

| scenario | database | req/s | events/s | p50 ms | p99 ms | ratio | target | errors | runs (req/s) |
|---|---|---|---|---|---|---|---|---|---|
${table}

${notes.map((n) => `- ${n}`).join('\n')}

## Analytics at scale

${analytics.join('\n')}
`;
  writeFileSync(new URL('./RESULTS-autocannon.md', import.meta.url), text);
}

const machine = machineLine();
console.log(machine);
const base = await baselines();
await serviceRuns('postgres', base);
await serviceRuns('pglite', base);
const analytics = analyticsEvents > 0 ? await benchAnalytics(pgUrl, analyticsEvents) : ['(skipped)'];
for (const line of analytics) console.log(line);
writeResults(machine, analytics);
console.log('wrote bench/RESULTS-autocannon.md');
