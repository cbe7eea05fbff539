import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { analyticsModule } from '../src/modules/analytics/index.js';
import type { EffectContext, MemoKey, ProcessedBatch, StoredEvent } from '../src/modules/events/index.js';
import { startServer } from '../test/helpers/server-process.js';
import { createStandaloneStore } from '../test/helpers/standalone.js';

/**
 * Analytics at scale: `total` synthetic events for one tenant (90 days, 50,000 users, 20 flows
 * of 5 steps, 50 pages) go through the analytics module's event effect as event processing runs
 * it (one transaction per chunk, its memo kept from chunk to chunk), then the overview and
 * per-flow answers are timed through HTTP against the running service.
 */
const DAYS = 90;
const USERS = 50_000;
const FLOWS = 20;
const STEPS = 5;
const CHUNK = 25_000;
/** Timed requests per query after the first (p99 is then the 2nd slowest of 200). */
const SAMPLES = 200;

export async function benchAnalytics(pgUrl: string, total: number): Promise<string[]> {
  const store = await createStandaloneStore({
    serverUrl: pgUrl,
    env: { LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_GLOBAL: '0' },
  });
  const server = await startServer(store.env);
  const lines: string[] = [];
  try {
    const auth = { authorization: `Bearer ${store.ownerToken}`, 'content-type': 'application/json' };
    const flowIds: string[] = [];
    for (let f = 0; f < FLOWS; f++) {
      const res = await fetch(`${server.url}/api/flows`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          name: `Flow ${f}`,
          siteId: '0190f3a2-0000-7000-8000-0000000000cc',
          template: 'PRODUCT_TOUR',
          steps: Array.from({ length: STEPS }, (_, s) => ({
            type: 'TOOLTIP',
            content: { title: `Step ${s}` },
          })),
        }),
      });
      flowIds.push(((await res.json()) as { data: { id: string } }).data.id);
    }

    const db = await store.open();
    const rollups = analyticsModule.effects?.find((e) => e.name === 'analytics-rollups');
    if (!rollups) throw new Error('the analytics module contributes no analytics-rollups effect');
    const ctx = effectContext();
    const log = pino({ level: 'silent' });
    const started = performance.now();
    const end = Date.now();
    let seq = 0;
    for (let loaded = 0; loaded < total; loaded += CHUNK) {
      const events: StoredEvent[] = [];
      for (let i = 0; i < Math.min(CHUNK, total - loaded); i++)
        events.push(syntheticEvent(seq++, end, flowIds));
      const batch: ProcessedBatch = {
        id: randomUUID(),
        tenantId: store.tenantId,
        correlationId: randomUUID(),
        events,
        log,
      };
      await db.db.transaction((tx) => rollups.apply(tx, [batch], ctx));
      if ((loaded / CHUNK) % 40 === 0)
        console.log(`  analytics fixture: ${loaded.toLocaleString('en-US')} events`);
    }
    const loadSeconds = (performance.now() - started) / 1000;
    await db.close();
    lines.push(
      `${total.toLocaleString('en-US')} events for one tenant (${DAYS} days, ${USERS.toLocaleString('en-US')} users, ` +
        `${FLOWS} flows × ${STEPS} steps) loaded through the rollup effect in ${loadSeconds.toFixed(0)} s ` +
        `(${Math.round(total / loadSeconds).toLocaleString('en-US')} events/s).`,
      '',
      '| query | first ms | p50 ms | p99 ms | max ms | target |',
      '|---|---|---|---|---|---|',
    );
    const day = (offset: number) => new Date(end - offset * 86_400_000).toISOString().slice(0, 10);
    const queries: [string, string][] = [
      ['overview, all time (no dates)', '/api/analytics/overview'],
      ['overview, last 7 days', `/api/analytics/overview?startDate=${day(6)}&endDate=${day(0)}`],
      ['overview, last 30 days', `/api/analytics/overview?startDate=${day(29)}&endDate=${day(0)}`],
      ['overview, last 90 days', `/api/analytics/overview?startDate=${day(89)}&endDate=${day(0)}`],
      ['per-flow, last 30 days', `/api/analytics/flows/${flowIds[0]}?startDate=${day(29)}&endDate=${day(0)}`],
      ['per-flow, last 90 days', `/api/analytics/flows/${flowIds[1]}?startDate=${day(89)}&endDate=${day(0)}`],
      [
        'heatmap, last 30 days',
        `/api/analytics/heatmaps?url=${encodeURIComponent(pageUrl(0))}&startDate=${day(29)}`,
      ],
    ];
    const timed = async (path: string) => {
      const t0 = performance.now();
      const res = await fetch(`${server.url}${path}`, { headers: auth });
      await res.text();
      if (res.status !== 200) throw new Error(`${path} → ${res.status}`);
      return performance.now() - t0;
    };
    for (const [name, path] of queries) {
      // The first request of each query reads the rollup pages cold, right after the load wrote
      // them (and while autovacuum works through them): shown on its own, not among the samples.
      const first = await timed(path);
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push(await timed(path));
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
      const target = name.startsWith('heatmap') ? '-' : '≤ 100 ms';
      lines.push(
        `| ${name} | ${first.toFixed(1)} | ${at(0.5)} | ${at(0.99)} | ${times.at(-1)!.toFixed(1)} | ${target} |`,
      );
    }
  } finally {
    await server.stop('SIGTERM');
    await store.destroy();
  }
  return lines;
}

/** What processing gives an effect: its memos kept from chunk to chunk; no event is set aside here. */
function effectContext(): EffectContext {
  const memos = new Map<MemoKey<unknown>, unknown>();
  return {
    deadLetter(_batch, event, reason) {
      throw new Error(`a synthetic ${event.type} event was set aside: ${reason}`);
    },
    memo<T>(key: MemoKey<T>): T {
      if (!memos.has(key)) memos.set(key, key.create());
      return memos.get(key) as T;
    },
  };
}

const pageUrl = (p: number) => `https://app.example.com/page/${p}`;

/** A deterministic mix: page views and clicks, flow journeys with drop-off, rage/dead clicks. */
function syntheticEvent(seq: number, end: number, flowIds: string[]): StoredEvent {
  const r = hash(seq);
  const user = r % USERS;
  const dayOffset = (r >>> 7) % DAYS;
  const timestamp = new Date(end - dayOffset * 86_400_000 - (r % 86_400_000)).toISOString();
  const base = { id: randomUUID(), clientId: false, timestamp, userId: `user-${user}` };
  const kind = seq % 20;
  if (kind < 6) return { ...base, type: 'PAGE_VIEW', url: pageUrl(r % 50) };
  if (kind < 12) {
    const selector = `#el-${r % 40}`;
    return {
      ...base,
      type: 'CLICK',
      url: pageUrl(r % 50),
      properties: { x: r % 1200, y: (r >>> 3) % 800, selector },
    };
  }
  if (kind === 12)
    return { ...base, type: 'RAGE_CLICK', url: pageUrl(r % 50), properties: { selector: `#el-${r % 40}` } };
  if (kind === 13)
    return { ...base, type: 'DEAD_CLICK', url: pageUrl(r % 50), properties: { selector: `#el-${r % 40}` } };
  const flowId = flowIds[r % flowIds.length]!;
  if (kind === 14) return { ...base, type: 'FLOW_STARTED', properties: { flowId } };
  if (kind < 18)
    return { ...base, type: 'STEP_VIEWED', properties: { flowId, stepIndex: (r >>> 5) % STEPS } };
  if (kind === 18) return { ...base, type: 'FLOW_COMPLETED', properties: { flowId } };
  return { ...base, type: 'CUSTOM', name: 'report_exported' };
}

function hash(n: number): number {
  let x = (n + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
