import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedBody } from '../src/modules/events/writer.js';
import { newId } from '../src/platform/ids.js';
import { serverDatabaseUrl } from './helpers/database.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from './helpers/standalone.js';

/**
 * Durability (DECISIONS §4): the server is killed with SIGKILL right after answering 202s
 * under load; after a restart every acknowledged event is stored and processed exactly once.
 */
let store: StandaloneStore;

beforeAll(async () => {
  store = await createStandaloneStore({
    serverUrl: serverDatabaseUrl(),
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_GLOBAL: '0', RATE_LIMIT_SDK: '0', REDIS_URL: '' },
  });
}, 120_000);
afterAll(() => store?.destroy());

/** Posts batches of 50 events from several concurrent loops; kills the server right after the Nth 202. */
async function loadUntilKilled(server: ServerProcess, killAfter: number) {
  const acknowledged: string[] = [];
  let acks = 0;
  let killed = false;
  const loop = async () => {
    while (!killed) {
      const events = Array.from({ length: 50 }, (_, i) => ({
        id: newId(),
        type: 'CLICK',
        properties: { i },
      }));
      try {
        const res = await fetch(`${server.url}/api/sdk/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': store.apiKey },
          body: JSON.stringify({ events }),
        });
        if (res.status !== 202) continue;
        acknowledged.push(...events.map((e) => e.id));
        if (++acks >= killAfter && !killed) {
          killed = true;
          server.child.kill('SIGKILL');
        }
      } catch {
        // the connection died with the server: this batch was never acknowledged
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, loop));
  if (server.child.exitCode === null && server.child.signalCode === null) {
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
  return acknowledged;
}

async function readState() {
  const db = await store.open();
  try {
    const batches = await db.query<{
      events: string | null;
      events_br: Uint8Array | null;
      processed_at: Date | null;
    }>('select events, events_br, processed_at from event_batches where tenant_id = $1', [store.tenantId]);
    const storedIds = new Set<string>();
    for (const b of batches)
      for (const e of (JSON.parse(storedBody(b.events, b.events_br)) as { events: { id: string }[] }).events)
        storedIds.add(e.id);
    const processed = await db.query<{ event_id: string }>(
      'select event_id from processed_event_ids where tenant_id = $1',
      [store.tenantId],
    );
    const [counted] = await db.query<{ n: number }>(
      'select coalesce(sum(events), 0)::int as n from analytics_daily_events where tenant_id = $1',
      [store.tenantId],
    );
    return {
      storedIds,
      pending: batches.filter((b) => b.processed_at === null).length,
      processedIds: new Set(processed.map((r) => r.event_id)),
      analyticsEvents: counted!.n,
    };
  } finally {
    await db.close();
  }
}

describe('a crash right after 202s', () => {
  it('loses no acknowledged event and processes each exactly once after restart', async () => {
    const first = await startServer(store.env);
    const acknowledged = await loadUntilKilled(first, 40);
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(40 * 50);

    const second = await startServer(store.env);
    // Let the restarted instance process what the first one stored, then stop it gracefully.
    if (store.env.DATABASE_URL) {
      await expect.poll(async () => (await readState()).pending, { timeout: 30_000, interval: 250 }).toBe(0);
    } else {
      await new Promise((r) => setTimeout(r, 4000));
    }
    expect(await second.stop('SIGTERM')).toBe(0);

    const state = await readState();
    expect(acknowledged.filter((id) => !state.storedIds.has(id))).toEqual([]);
    expect(state.pending).toBe(0);
    expect(acknowledged.filter((id) => !state.processedIds.has(id))).toEqual([]);
    // Exactly once in analytics: every stored event counted, none twice.
    expect(state.analyticsEvents).toBe(state.storedIds.size);
  }, 180_000);
});
