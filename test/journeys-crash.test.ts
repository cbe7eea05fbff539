import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverDatabaseUrl } from './helpers/database.js';
import { type SeededTimers, seedWaitingEnrollments, timerOutcome } from './helpers/journey-seed.js';
import { startServer } from './helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from './helpers/standalone.js';

/**
 * Journey timers are durable and fire exactly once: a child server with 2,000 enrollments whose
 * WAIT timers come due is killed with SIGKILL while it is firing them; after a restart every
 * enrollment has advanced exactly once (one visit of the next node, no duplicate, none stuck).
 * Runs on PGlite (a data directory) or, with DATABASE_URL, on PostgreSQL.
 */
const COUNT = 2_000;
const SPREAD_MS = 15_000;
let store: StandaloneStore;
let seeded: SeededTimers;

/**
 * Seeds COUNT enrollments whose timers come due from `leadMs` after now, spread over SPREAD_MS:
 * the job fires them over many runs, so the kill lands in the middle.
 */
async function seedTimers(leadMs: number): Promise<SeededTimers> {
  const db = await store.open();
  try {
    const start = Date.now() + leadMs;
    return await seedWaitingEnrollments(
      db,
      store.tenantId,
      COUNT,
      (i) => start + Math.floor((i * SPREAD_MS) / COUNT),
    );
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  store = await createStandaloneStore({
    serverUrl: serverDatabaseUrl(),
    env: { LOG_LEVEL: 'info', RATE_LIMIT_GLOBAL: '0', RATE_LIMIT_SDK: '0', REDIS_URL: '' },
  });
}, 120_000);
afterAll(() => store?.destroy());

async function advancedAtW2(url: string): Promise<number> {
  const res = await fetch(`${url}/api/journeys/${seeded.journeyId}/analytics`, {
    headers: { authorization: `Bearer ${store.ownerToken}` },
  });
  if (res.status !== 200) throw new Error(`analytics answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { data: { nodes: { nodeId: string; entered: number }[] } };
  return body.data.nodes.find((n) => n.nodeId === seeded.w2)!.entered;
}

describe('journey timers across a SIGKILL', () => {
  it('advances every enrollment exactly once after a crash mid-run and a restart', async () => {
    // The kill must come while timers are being fired. On a machine loaded enough that seeding
    // and booting outlast the lead (the server then fires all of them before its first answer),
    // the scenario is seeded again with a lead three times as long as that took.
    let leadMs = 6_000;
    let seenBeforeKill = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const seedingAt = Date.now();
      seeded = await seedTimers(leadMs);
      const first = await startServer(store.env);
      const readyAfterMs = Date.now() - seedingAt;
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        seenBeforeKill = await advancedAtW2(first.url);
        if (seenBeforeKill > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));
      expect(first.child.signalCode).toBe('SIGKILL');
      if (seenBeforeKill < COUNT) break;
      leadMs = Math.max(leadMs, readyAfterMs) * 3;
    }
    // The kill came while timers were being fired: some had, not all.
    expect(seenBeforeKill).toBeGreaterThan(0);
    expect(seenBeforeKill).toBeLessThan(COUNT);

    const second = await startServer(store.env);
    await expect.poll(() => advancedAtW2(second.url), { timeout: 60_000, interval: 250 }).toBe(COUNT);
    expect(await second.stop('SIGTERM')).toBe(0);

    const db = await store.open();
    try {
      expect(await timerOutcome(db, seeded)).toEqual({
        enrollments: COUNT,
        at_w2: COUNT,
        w1_exited: COUNT,
        w2_visits: COUNT,
        w2_distinct: COUNT,
        other_visits: 0,
        w2_timers: COUNT,
        w1_timers: 0,
      });
    } finally {
      await db.close();
    }
  }, 420_000);
});
