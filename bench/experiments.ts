import { writeFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { type ServerProcess, startServer } from '../test/helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from '../test/helpers/standalone.js';
import { cpuSeconds } from './process-cpu.js';
import { seedDelivery } from './seed-delivery.js';

/**
 * `npx tsx bench/experiments.ts`: the cost of experiments, on PostgreSQL (BENCH_DATABASE_URL,
 * default the local server; Redis as in `npm run bench`) and on the embedded PGlite.
 *
 * 1. `POST /api/sdk/session` on the delivery fixture of `npm run bench` (100 published items, 20
 *    audiences) with no running experiment, then with 5 running (each over two of the fixture's
 *    flows; one targets an audience, one has a holdout), alternating none / five for
 *    BENCH_ROUNDS rounds (default 3) in the same run so both see the same machine. The session is
 *    a returning user (assigned at the first session, read back after). Each figure: requests per
 *    second, and the service process's CPU time per request (/proc), which a shared machine's
 *    neighbours disturb far less than throughput. Target: five ≥ 0.9× none.
 * 2. `POST /api/experiments/:id/compute-results` over 1,000,000 assignments and 300,000
 *    conversions seeded with generate_series (not through HTTP), timed through HTTP: median and
 *    worst of BENCH_RESULT_RUNS (default 15) after 3 warm-ups, before and after VACUUM (which sets
 *    the visibility map that lets the index-only scan skip the table, as autovacuum does after a
 *    bulk load). `GET /results` (the daily series) likewise. Target: ≤ 500 ms on PostgreSQL.
 *
 * Prints the figures and writes bench/EXPERIMENTS-RESULTS.md. BENCH_SECONDS (default 10) per run;
 * BENCH_MODES=postgres,pglite picks the modes; BENCH_ASSIGNMENTS (default 1,000,000) the fixture.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const resultRuns = Number(process.env.BENCH_RESULT_RUNS ?? 15);
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const modes = (process.env.BENCH_MODES ?? 'postgres,pglite').split(',') as ('postgres' | 'pglite')[];
const ASSIGNMENTS = Number(process.env.BENCH_ASSIGNMENTS ?? 1_000_000);
const CONVERSIONS = Math.round(ASSIGNMENTS * 0.3);

const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return JSON.parse(text);
}

interface Run {
  rps: number;
  /** CPU time of the service process per request, µs. */
  cpuUs: number;
  p99: number;
  errors: number;
}

async function sessionBench(mode: string, store: StandaloneStore) {
  const server = await startServer(store.env);
  try {
    const session = await seedDelivery(server.url, store.ownerToken, { items: 100, audiences: 20 });
    const flows = (await api(server.url, store.ownerToken, 'GET', '/api/flows?status=PUBLISHED&limit=100'))
      .data as {
      id: string;
      audienceId: string | null;
    }[];
    const audiences = (await api(server.url, store.ownerToken, 'GET', '/api/audiences?limit=100')).data as {
      id: string;
    }[];
    // Live: each over two published flows the user may get (the session then serves one of
    // them: a smaller answer). Idle: over unpublished flows, so the answer's items are the same as
    // with none and only the experiments' own cost (state, choice, the list) differs.
    const drafts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const flow = await api(server.url, store.ownerToken, 'POST', '/api/flows', {
        name: `Unpublished ${i}`,
        siteId: '0190f3a2-0000-7000-8000-000000000001',
        template: 'PRODUCT_TOUR',
      });
      drafts.push(flow.data.id);
    }
    const createFive = async (label: string, flowAt: (j: number) => string) => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const [a, b] = [flowAt(2 * i), flowAt(2 * i + 1)];
        const exp = await api(server.url, store.ownerToken, 'POST', '/api/experiments', {
          name: `Bench ${label} experiment ${i}`,
          ...(i === 1 ? { audienceId: audiences[0]!.id } : {}),
          variants:
            i === 2
              ? [
                  { name: 'Control', splitPercentage: 45, flowId: a },
                  { name: 'B', splitPercentage: 45, flowId: b },
                  { name: 'Holdout', splitPercentage: 10 },
                ]
              : [
                  { name: 'Control', splitPercentage: 50, flowId: a },
                  { name: 'B', splitPercentage: 50, flowId: b },
                ],
        });
        ids.push(exp.data.id);
      }
      return ids;
    };
    const live = await createFive('live', (j) => flows[j]!.id);
    const idle = await createFive('idle', (j) => drafts[j]!);
    const setRunning = async (ids: string[], running: boolean) => {
      for (const id of ids)
        await api(
          server.url,
          store.ownerToken,
          'POST',
          `/api/experiments/${id}/${running ? 'start' : 'stop'}`,
        );
    };
    const body = JSON.stringify(session.body);
    const target = {
      url: `${server.url}/api/sdk/session`,
      method: 'POST' as const,
      headers: { 'x-api-key': store.apiKey, 'content-type': 'application/json' },
      body,
      connections: 50,
    };
    const pid = server.child.pid!;
    const measure = async (): Promise<Run> => {
      await autocannon({ ...target, duration: 2 });
      const cpu0 = cpuSeconds(pid);
      const r = await autocannon({ ...target, duration: seconds });
      const cpu = cpuSeconds(pid) - cpu0;
      return {
        rps: r.requests.average,
        cpuUs: (cpu * 1e6) / r.requests.total,
        p99: r.latency.p99,
        errors: r.errors + r.non2xx,
      };
    };
    const none: Run[] = [];
    const five: Run[] = [];
    const fiveIdle: Run[] = [];
    const describe = async (label: string) => {
      const res = await fetch(target.url, { method: 'POST', headers: target.headers, body });
      const data = (await res.json()).data as { experiments: unknown[]; flows: unknown[] };
      say(
        `${mode}: ${label}: the benchmark user is in ${data.experiments.length} experiments, served ${data.flows.length} flows`,
      );
    };
    // A first full-length run unmeasured: the process's first seconds under load (JIT, caches)
    // would otherwise count against whichever condition comes first.
    await autocannon({ ...target, duration: seconds });
    for (let round = 0; round < rounds; round++) {
      if (round === 0) await describe('no experiment');
      none.push(await measure());
      await setRunning(live, true);
      if (round === 0) await describe('5 live experiments');
      five.push(await measure());
      await setRunning(live, false);
      await setRunning(idle, true);
      if (round === 0) await describe('5 idle experiments');
      fiveIdle.push(await measure());
      await setRunning(idle, false);
    }
    const show = (runs: Run[]) =>
      runs
        .map(
          (r) =>
            `${Math.round(r.rps)} req/s ${Math.round(r.cpuUs)} µs (p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''})`,
        )
        .join('; ');
    say(`${mode}: session, no experiment, by round: ${show(none)}`);
    say(`${mode}: session, 5 live experiments, by round: ${show(five)}`);
    say(`${mode}: session, 5 idle experiments, by round: ${show(fiveIdle)}`);
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const compare = (label: string, runs: Run[]) => {
      const rpsRatio = med(runs.map((r) => r.rps)) / med(none.map((r) => r.rps));
      const cpuRatio = med(none.map((r) => r.cpuUs)) / med(runs.map((r) => r.cpuUs));
      say(
        `${mode}: **session with ${label} / none: ${rpsRatio.toFixed(3)}× in req/s (medians), ` +
          `${cpuRatio.toFixed(3)}× in service CPU per request** (target ≥ 0.9×)`,
      );
    };
    compare('5 live experiments', five);
    compare('5 idle experiments (same items served)', fiveIdle);
  } finally {
    await server.stop('SIGTERM');
  }
}

/** 1M assignments, 30% converted, over 30 days and two variants, in SQL (the server is not running). */
async function seedResults(store: StandaloneStore): Promise<string> {
  const db = await store.open();
  try {
    const [exp] = await db.query<{ id: string }>(
      `insert into experiments (id, tenant_id, name, status, seed, start_date)
       values (gen_random_uuid(), $1, 'Bench results', 'running', 'bench-seed', now() - interval '30 days')
       returning id`,
      [store.tenantId],
    );
    const experimentId = exp!.id;
    await db.query(
      `insert into experiment_variants (id, tenant_id, experiment_id, position, name, split_basis_points)
       values (gen_random_uuid(), $1, $2, 0, 'Control', 5000), (gen_random_uuid(), $1, $2, 1, 'B', 5000)`,
      [store.tenantId, experimentId],
    );
    const started = Date.now();
    await db.query(
      `insert into end_users (id, tenant_id, external_id, traits, first_seen_at, last_seen_at)
       select gen_random_uuid(), $1, 'results-' || i, '{}', now(), now() from generate_series(1, $2::int) i`,
      [store.tenantId, ASSIGNMENTS],
    );
    // (rn · 7919) mod N is a permutation of 0..N-1 (7919 is prime to N): exactly 30% convert.
    await db.query(
      `insert into experiment_assignments (experiment_id, end_user_id, tenant_id, variant_id, assigned_at, converted_at)
       select $2, u.id, $1, v.id, a.at,
              case when (u.rn * 7919) % $3::int < $4::int then a.at + interval '2 hours' end
       from (select id, row_number() over () as rn from end_users where tenant_id = $1 and external_id like 'results-%') u
       join experiment_variants v on v.experiment_id = $2 and v.position = (u.rn % 2)::int
       cross join lateral (select now() - interval '30 days' + (u.rn % 30) * interval '1 day' + (u.rn % 86400) * interval '1 second' as at) a`,
      [store.tenantId, experimentId, ASSIGNMENTS, CONVERSIONS],
    );
    await db.query('analyze experiment_assignments');
    const [counts] = await db.query<{ n: number; x: number }>(
      'select count(*)::int as n, count(converted_at)::int as x from experiment_assignments where experiment_id = $1',
      [experimentId],
    );
    say(
      `seeded ${counts!.n.toLocaleString('en-US')} assignments, ${counts!.x.toLocaleString('en-US')} conversions in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return experimentId;
  } finally {
    await db.close();
  }
}

async function time(url: string, token: string, method: 'GET' | 'POST') {
  const runs: number[] = [];
  for (let i = 0; i < 3 + resultRuns; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}` } });
    await res.text();
    if (res.status !== 200) throw new Error(`${method} ${url} → ${res.status}`);
    if (i >= 3) runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  return { median: runs[Math.floor(runs.length / 2)]!, worst: runs[runs.length - 1]!, best: runs[0]! };
}

async function resultsBench(mode: string, store: StandaloneStore, experimentId: string, label: string) {
  const server: ServerProcess = await startServer(store.env);
  try {
    const base = `${server.url}/api/experiments/${experimentId}`;
    const compute = await time(`${base}/compute-results`, store.ownerToken, 'POST');
    const series = await time(`${base}/results`, store.ownerToken, 'GET');
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    say(
      `${mode} (${label}): **compute-results median ${ms(compute.median)}** (best ${ms(compute.best)}, worst ${ms(compute.worst)}); ` +
        `GET results (daily series) median ${ms(series.median)} (worst ${ms(series.worst)})`,
    );
    if (label === 'after VACUUM') {
      const res = await fetch(`${base}/compute-results`, {
        method: 'POST',
        headers: { authorization: `Bearer ${store.ownerToken}` },
      });
      say(
        `${mode}: compute-results answer: ${JSON.stringify((await res.json()).data.variants.map((v: Record<string, unknown>) => ({ n: v.sampleSize, x: v.conversions, p: v.pValue })))}`,
      );
    }
  } finally {
    await server.stop('SIGTERM');
  }
}

async function main() {
  say(`# Experiments benchmark, ${new Date().toISOString()}`);
  say(
    `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; ${seconds} s per load run, ${rounds} alternating rounds`,
  );
  for (const mode of modes) {
    const store = await createStandaloneStore({
      serverUrl: mode === 'postgres' ? pgUrl : undefined,
      env: {
        LOG_LEVEL: 'warn',
        RATE_LIMIT_GLOBAL: '100000000',
        RATE_LIMIT_SDK: '100000000',
        RATE_LIMIT_AUTH: '100000000',
        REDIS_URL: mode === 'postgres' ? redisUrl : '',
      },
    });
    try {
      await sessionBench(mode, store);
      const experimentId = await seedResults(store);
      await resultsBench(mode, store, experimentId, 'after ANALYZE');
      const db = await store.open();
      await db.query('vacuum analyze experiment_assignments');
      await db.close();
      await resultsBench(mode, store, experimentId, 'after VACUUM');
    } finally {
      await store.destroy();
    }
  }
  writeFileSync(new URL('./EXPERIMENTS-RESULTS.md', import.meta.url), `${lines.join('\n\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
