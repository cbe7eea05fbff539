import { performance } from 'node:perf_hooks';
import { seedWaitingEnrollments } from '../test/helpers/journey-seed.js';
import { type ServerProcess, startServer } from '../test/helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from '../test/helpers/standalone.js';
import { load } from './load.js';
import { seedDelivery } from './seed-delivery.js';

/**
 * `npx tsx bench/journeys.ts`: the journey engine's figures, on PostgreSQL (BENCH_DATABASE_URL,
 * default the local server; Redis on BENCH_REDIS_URL) and on the embedded PGlite
 * (JOURNEYS_BENCH_MODES=postgres,pglite by default). Prints a table per mode:
 *
 * 1. new enrollments per second from CUSTOM_EVENT triggers sent through `POST /api/sdk/events`
 *    (each event a new user: end user created, trigger matched, enrollment, WAIT timer), from
 *    the first request to the last enrollment committed;
 * 2. 100,000 WAIT timers due at one instant: when 50 % / 99 % / all had advanced, seen from
 *    outside (analytics polled every 100 ms), and the claim-time lateness per enrollment;
 * 3. events ingest (autocannon, 50-event batches, ROLE=all) without, then with, a published
 *    CUSTOM_EVENT journey the events trigger and feed, in the same run, with processing drains;
 * 4. `POST /api/sdk/session` without journeys, then with 5 published journeys (the user waiting
 *    at a CONTENT node of one, two audience-only journeys evaluated per session).
 *
 * JOURNEYS_BENCH_PARTS=2 runs only the parts listed (default 1,2,3,4; 3 and 4 share a server and
 * run together); JOURNEYS_BENCH_TIMERS sets part 2's count. bench/journey-timers-profile.ts shows
 * where the time of part 2 goes.
 */
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const modes = (process.env.JOURNEYS_BENCH_MODES ?? 'postgres,pglite').split(',') as ('postgres' | 'pglite')[];
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const TIMERS = Number(process.env.JOURNEYS_BENCH_TIMERS ?? 100_000);
const parts = new Set((process.env.JOURNEYS_BENCH_PARTS ?? '1,2,3,4').split(',').map(Number));
const SITE = '0190f3a2-0000-7000-8000-0000000000aa';
const at = { x: 0, y: 0 };
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

type Api = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ data: Record<string, unknown> } & Record<string, unknown>>;

function apiOf(url: string, token: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
    return JSON.parse(text);
  };
}

const id = () => crypto.randomUUID();

/** TRIGGER(CUSTOM_EVENT name) → `then` → EXIT, published. */
async function triggeredJourney(api: Api, eventName: string, then: Record<string, unknown>, extra = {}) {
  const n = { t: id(), w: id(), x: id() };
  const labels = then.type === 'WAIT_FOR_EVENT' ? 'event' : undefined;
  const j = await api('POST', '/api/journeys', {
    name: `On ${eventName}`,
    siteId: SITE,
    nodes: [
      {
        id: n.t,
        type: 'TRIGGER',
        config: { triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName } },
        position: at,
      },
      { id: n.w, position: at, ...then },
      { id: n.x, type: 'EXIT', config: {}, position: at },
    ],
    edges: [
      { sourceNodeId: n.t, targetNodeId: n.w },
      { sourceNodeId: n.w, targetNodeId: n.x, ...(labels ? { label: labels } : {}) },
    ],
    ...extra,
  });
  const journeyId = j.data.id as string;
  await api('POST', `/api/journeys/${journeyId}/publish`);
  return journeyId;
}

async function analytics(api: Api, journeyId: string) {
  return (await api('GET', `/api/journeys/${journeyId}/analytics`)).data as {
    enrollments: number;
    nodes: { nodeId: string; entered: number }[];
  };
}

/** Waits until the overview's totalEvents stops moving for 1 s; returns events/s while it moved. */
async function drain(api: Api): Promise<{ events: number; seconds: number }> {
  const total = async () => (await api('GET', '/api/analytics/overview')).data.totalEvents as number;
  const started = performance.now();
  const first = await total();
  let last = first;
  let steadySince = performance.now();
  while (performance.now() - steadySince < 1000 && performance.now() - started < 600_000) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await total();
    if (now !== last) {
      last = now;
      steadySince = performance.now();
    }
  }
  return { events: last - first, seconds: (steadySince - started) / 1000 };
}

// ---- 1. enrollments from CUSTOM_EVENT triggers --------------------------------------------------

async function enrollmentRate(server: ServerProcess, store: StandaloneStore, total: number) {
  const api = apiOf(server.url, store.ownerToken);
  const journeyId = await triggeredJourney(api, 'signup', { type: 'WAIT', config: { duration: 86_400_000 } });
  const perRequest = 50;
  let next = 0;
  const started = performance.now();
  const send = async () => {
    while (next < total) {
      const from = next;
      next += perRequest;
      const events = Array.from({ length: Math.min(perRequest, total - from) }, (_, i) => ({
        type: 'CUSTOM',
        name: 'signup',
        userId: `new-user-${from + i}`,
      }));
      const res = await fetch(`${server.url}/api/sdk/events`, {
        method: 'POST',
        headers: { 'x-api-key': store.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      if (res.status !== 202) throw new Error(`events → ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, send));
  const accepted = performance.now();
  let enrolled = 0;
  while (enrolled < total && performance.now() - started < 600_000) {
    await new Promise((r) => setTimeout(r, 100));
    enrolled = (await analytics(api, journeyId)).enrollments;
  }
  const done = performance.now();
  return {
    total: enrolled,
    acceptSeconds: (accepted - started) / 1000,
    seconds: (done - started) / 1000,
    rate: enrolled / ((done - started) / 1000),
  };
}

// ---- 2. timers due at one instant ---------------------------------------------------------------

async function timersAtOneInstant(store: StandaloneStore, env: Record<string, string>) {
  const db = await store.open();
  const seedStart = performance.now();
  // Due 40 s after seeding ends is set below: seed first with a far due time, then move it.
  const marginMs = 30_000;
  let dueAt = 0;
  const seeded = await seedWaitingEnrollments(
    db,
    store.tenantId,
    TIMERS,
    () => dueAt || Date.now() + 3_600_000,
    {
      chunk: 10_000,
    },
  );
  // One instant for all of them, far enough ahead for the server to boot.
  dueAt = Date.now() + marginMs;
  await db.query(`update journey_timers set due_at = $2 where journey_id = $1 and kind = 'node'`, [
    seeded.journeyId,
    new Date(dueAt).toISOString(),
  ]);
  await db.query(
    `update journey_enrollments set state = jsonb_set(state::jsonb, '{waiting,dueAt}', to_jsonb($2::bigint))::json
     where journey_id = $1`,
    [seeded.journeyId, dueAt],
  );
  const seedSeconds = (performance.now() - seedStart) / 1000;
  await db.close();
  const server = await startServer(env);
  const api = apiOf(server.url, store.ownerToken);
  const bootedBefore = dueAt - Date.now();
  const seen: { at: number; advanced: number }[] = [];
  try {
    while (Date.now() < dueAt + 120_000) {
      const stats = await analytics(api, seeded.journeyId);
      const advanced = stats.nodes.find((n) => n.nodeId === seeded.w2)!.entered;
      seen.push({ at: Date.now(), advanced });
      if (advanced >= TIMERS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await server.stop('SIGTERM');
  }
  const when = (share: number) => {
    const hit = seen.find((s) => s.advanced >= Math.ceil(TIMERS * share));
    return hit ? (hit.at - dueAt) / 1000 : Number.NaN;
  };
  // Per enrollment: when its step was written (updated_at, clock_timestamp() of the update,
  // moments before the commit) and when its timer was claimed (W1's exited_at), after the instant.
  const db2 = await store.open();
  const [claim] = await db2.query<{ p50: number; p99: number; max: number; n: number }>(
    `select percentile_cont(0.5) within group (order by extract(epoch from exited_at) * 1000 - $2) as p50,
            percentile_cont(0.99) within group (order by extract(epoch from exited_at) * 1000 - $2) as p99,
            max(extract(epoch from exited_at) * 1000 - $2) as max, count(exited_at)::int as n
     from journey_node_visits where journey_id = $1 and node_id = $3`,
    [seeded.journeyId, dueAt, seeded.w1],
  );
  const [advanced] = await db2.query<{ p50: number; p99: number; max: number }>(
    `select percentile_cont(0.5) within group (order by extract(epoch from updated_at) * 1000 - $2) as p50,
            percentile_cont(0.99) within group (order by extract(epoch from updated_at) * 1000 - $2) as p99,
            max(extract(epoch from updated_at) * 1000 - $2) as max
     from journey_enrollments where journey_id = $1 and current_node_id = $3`,
    [seeded.journeyId, dueAt, seeded.w2],
  );
  await db2.close();
  return {
    seedSeconds,
    bootedBefore,
    p50: when(0.5),
    p99: when(0.99),
    all: when(1),
    claim: claim!,
    advanced: advanced!,
  };
}

// ---- 3. ingest with and without a journey -------------------------------------------------------

const eventsBody = JSON.stringify({
  events: Array.from({ length: 50 }, (_, i) => ({
    type: 'CUSTOM',
    name: 'bench_event',
    userId: `bench-user-${i}`,
    url: 'https://app.example.com/dashboard',
    properties: { i },
  })),
});

async function ingest(server: ServerProcess, store: StandaloneStore) {
  const api = apiOf(server.url, store.ownerToken);
  const run = () =>
    load({
      url: `${server.url}/api/sdk/events`,
      method: 'POST',
      headers: { 'x-api-key': store.apiKey, 'content-type': 'application/json' },
      body: eventsBody,
      seconds,
      repeats,
      between: async () => {
        await drain(api);
      },
    });
  await drain(api);
  const without = await run();
  const drainWithout = await drain(api);
  // The events enroll their 50 users and then feed those enrollments (WAIT_FOR_EVENT never met).
  const journeyId = await triggeredJourney(api, 'bench_event', {
    type: 'WAIT_FOR_EVENT',
    config: { eventName: 'never_sent' },
  });
  const withJourney = await run();
  const drainWith = await drain(api);
  // And without again (the journey archived), so that neither side has the machine's warm-up
  // or a later, busier moment to itself.
  await api('DELETE', `/api/journeys/${journeyId}`);
  const after = await run();
  await drain(api);
  return { without, withJourney, after, drainWithout, drainWith };
}

// ---- 4. sessions with 5 published journeys ------------------------------------------------------

async function sessions(server: ServerProcess, store: StandaloneStore) {
  const api = apiOf(server.url, store.ownerToken);
  const session = await seedDelivery(server.url, store.ownerToken, { items: 100, audiences: 20 });
  const body = JSON.stringify(session.body);
  const userId = (session.body as { userId?: string }).userId ?? 'bench-session-user';
  const run = () =>
    load({
      url: `${server.url}/api/sdk/session`,
      method: 'POST',
      headers: { 'x-api-key': store.apiKey, 'content-type': 'application/json' },
      body,
      seconds,
      repeats,
    });
  const without = await run();
  const flow = await api('POST', '/api/flows', {
    name: 'Journey step',
    siteId: SITE,
    template: 'CUSTOM',
    steps: [{ type: 'MODAL', content: { title: 'Hi' } }],
  });
  const flowId = flow.data.id as string;
  const audience = await api('POST', '/api/audiences', {
    name: 'Everyone with a plan',
    ruleTree: { field: 'traits.plan', operator: 'exists' },
  });
  const audienceId = audience.data.id as string;
  // 3 CUSTOM_EVENT journeys with a CONTENT node; the user waits at the first one's content.
  const contentJourney = (name: string) =>
    triggeredJourney(api, name, { type: 'CONTENT', config: { contentType: 'flow' }, contentId: flowId });
  const first = await contentJourney('start_1');
  const ids = [first, await contentJourney('start_2'), await contentJourney('start_3')];
  // 2 audience-only journeys (MANUAL with an audience; re-entry never): enrolled at the first session.
  for (let i = 0; i < 2; i++) {
    const n = { t: id(), w: id(), x: id() };
    const j = await api('POST', '/api/journeys', {
      name: `Audience only ${i}`,
      siteId: SITE,
      audienceId,
      nodes: [
        { id: n.t, type: 'TRIGGER', config: { triggerType: 'MANUAL', triggerConfig: {} }, position: at },
        { id: n.w, type: 'WAIT', config: { duration: 86_400_000 }, position: at },
        { id: n.x, type: 'EXIT', config: {}, position: at },
      ],
      edges: [
        { sourceNodeId: n.t, targetNodeId: n.w },
        { sourceNodeId: n.w, targetNodeId: n.x },
      ],
    });
    await api('POST', `/api/journeys/${j.data.id}/publish`);
    ids.push(j.data.id as string);
  }
  await fetch(`${server.url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'x-api-key': store.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'CUSTOM', name: 'start_1', userId }] }),
  });
  for (let i = 0; i < 100; i++) {
    if ((await analytics(api, first)).enrollments > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const check = await fetch(`${server.url}/api/sdk/session`, {
    method: 'POST',
    headers: { 'x-api-key': store.apiKey, 'content-type': 'application/json' },
    body,
  });
  const served = ((await check.json()) as { data: { journeys: unknown[] } }).data.journeys.length;
  const withJourneys = await run();
  // And without again (the journeys archived): neither side gets the warm-up or a busier moment.
  for (const journeyId of ids) await api('DELETE', `/api/journeys/${journeyId}`);
  const after = await run();
  return { without, withJourneys, after, served, userId };
}

// ---- the run ------------------------------------------------------------------------------------

async function benchMode(mode: 'postgres' | 'pglite'): Promise<string[]> {
  const limits = {
    RATE_LIMIT_GLOBAL: '100000000',
    RATE_LIMIT_SDK: '100000000',
    RATE_LIMIT_AUTH: '100000000',
  };
  const lines: string[] = [`### ${mode}`, ''];
  const newStore = () =>
    createStandaloneStore({
      serverUrl: mode === 'postgres' ? pgUrl : undefined,
      env: { LOG_LEVEL: 'warn', ...limits, REDIS_URL: mode === 'postgres' ? redisUrl : '' },
    });

  // Sessions first, on a quiet store.
  if (parts.has(4) || parts.has(3)) await sessionsAndIngest(newStore, lines);
  if (parts.has(1)) await enrollments(mode, newStore, lines);
  if (parts.has(2)) await timers(newStore, lines);
  return lines;
}

async function sessionsAndIngest(newStore: () => Promise<StandaloneStore>, lines: string[]) {
  const store = await newStore();
  const server = await startServer(store.env);
  try {
    const s = await sessions(server, store);
    const sessionBase = (s.without.rps + s.after.rps) / 2;
    lines.push(
      `| POST /api/sdk/session (100 items, 20 audiences) | without journeys, before / after | ${fmt(s.without.rps)} / ${fmt(s.after.rps)} req/s, p99 ${s.without.p99} / ${s.after.p99} ms | runs ${s.without.runs.map(fmt).join(' / ')} and ${s.after.runs.map(fmt).join(' / ')} |`,
      `| POST /api/sdk/session, 5 published journeys (${s.served} due), in between | with | ${fmt(s.withJourneys.rps)} req/s, p99 ${s.withJourneys.p99} ms (${(s.withJourneys.rps / sessionBase).toFixed(2)}× the mean without) | runs ${s.withJourneys.runs.map(fmt).join(' / ')}; target ≥ 5,000 req/s |`,
    );
    const e = await ingest(server, store);
    const drainRate = (d: { events: number; seconds: number }) => (d.seconds > 0 ? d.events / d.seconds : 0);
    const baseline = (e.without.rps + e.after.rps) / 2;
    lines.push(
      `| events, 50/batch, ROLE=all | without journeys, before / after | ${fmt(e.without.rps * 50)} / ${fmt(e.after.rps * 50)} ev/s, p99 ${e.without.p99} / ${e.after.p99} ms | drain after the first: ${fmt(drainRate(e.drainWithout))} ev/s |`,
      `| events, 50/batch, ROLE=all | with a CUSTOM_EVENT journey (in between) | ${fmt(e.withJourney.rps * 50)} ev/s, p99 ${e.withJourney.p99} ms (${(e.withJourney.rps / baseline).toFixed(2)}× the mean without) | drain after: ${fmt(drainRate(e.drainWith))} ev/s; target ≥ 0.9× |`,
    );
  } finally {
    await server.stop('SIGTERM');
    await store.destroy();
  }
}

async function enrollments(
  mode: 'postgres' | 'pglite',
  newStore: () => Promise<StandaloneStore>,
  lines: string[],
) {
  const store = await newStore();
  const server = await startServer(store.env);
  try {
    const total = mode === 'postgres' ? 20_000 : 10_000;
    const r = await enrollmentRate(server, store, total);
    lines.push(
      `| new enrollments from CUSTOM_EVENT via POST /api/sdk/events | ${fmt(r.total)} users | ${fmt(r.rate)} enrollments/s | accepted in ${r.acceptSeconds.toFixed(1)} s, all enrolled after ${r.seconds.toFixed(1)} s; target ≥ 2,000/s (PostgreSQL) |`,
    );
  } finally {
    await server.stop('SIGTERM');
    await store.destroy();
  }
}

async function timers(newStore: () => Promise<StandaloneStore>, lines: string[]) {
  const store = await newStore();
  try {
    const t = await timersAtOneInstant(store, store.env);
    lines.push(
      `| ${fmt(TIMERS)} WAIT timers due at one instant | step written after the instant | p50 ${(t.advanced.p50 / 1000).toFixed(2)} s, p99 ${(t.advanced.p99 / 1000).toFixed(2)} s, all ${(t.advanced.max / 1000).toFixed(2)} s | claimed p50 ${(t.claim.p50 / 1000).toFixed(2)} s, p99 ${(t.claim.p99 / 1000).toFixed(2)} s (${fmt(t.claim.n)} fired); a reader polling every 0.5 s saw all at +${t.all.toFixed(1)} s; seeded in ${t.seedSeconds.toFixed(0)} s; server up ${(t.bootedBefore / 1000).toFixed(1)} s before the instant; goal p99 < 2 s, all < 60 s |`,
    );
  } finally {
    await store.destroy();
  }
}

async function main() {
  const out: string[] = [];
  for (const mode of modes) {
    console.log(`journeys bench: ${mode}…`);
    const lines = await benchMode(mode);
    for (const l of lines) console.log(l);
    out.push(...lines, '');
  }
  console.log(`\n| scenario | variant | figure | notes |\n|---|---|---|---|\n${out.join('\n')}`);
}

await main();
