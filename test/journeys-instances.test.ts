import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverDatabaseUrl, testRedisUrl } from './helpers/database.js';
import { seedWaitingEnrollments, timerOutcome } from './helpers/journey-seed.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from './helpers/standalone.js';

/**
 * Three server instances on one PostgreSQL (and Redis): 1,000 journey timers coming due while all
 * three run are each fired exactly once, by whichever instance claimed it (FOR UPDATE SKIP
 * LOCKED). PostgreSQL only (PGlite is one process's database): CI runs it with DATABASE_URL.
 */
const COUNT = 1_000;
const pg = serverDatabaseUrl();
let store: StandaloneStore;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  if (!pg) return;
  store = await createStandaloneStore({
    serverUrl: pg,
    env: {
      LOG_LEVEL: 'info',
      RATE_LIMIT_GLOBAL: '0',
      RATE_LIMIT_SDK: '0',
      REDIS_URL: testRedisUrl() ?? '',
    },
  });
}, 120_000);
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  await store?.destroy();
});

/** The `fired` counts an instance logged ("journey timers fired"). */
const firedBy = (server: ServerProcess) =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes('journey timers fired'))
    .reduce((sum, line) => sum + (JSON.parse(line) as { fired: number }).fired, 0);

describe.skipIf(!pg)('journey timers with three instances on one PostgreSQL', () => {
  it('fires 1,000 due timers exactly once between them', async () => {
    servers.push(
      ...(await Promise.all([startServer(store.env), startServer(store.env), startServer(store.env)])),
    );
    const db = await store.open();
    try {
      // Due 1 s from now, spread over 2 s: every instance's runs find some.
      const start = Date.now() + 1_000;
      const seeded = await seedWaitingEnrollments(
        db,
        store.tenantId,
        COUNT,
        (i) => start + Math.floor((i * 2_000) / COUNT),
      );
      await expect
        .poll(async () => (await timerOutcome(db, seeded)).at_w2, { timeout: 60_000, interval: 250 })
        .toBe(COUNT);
      // A moment more: a second firing of any timer would show now.
      await new Promise((r) => setTimeout(r, 1_000));
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
      const fired = servers.map(firedBy);
      expect(fired.reduce((a, b) => a + b, 0)).toBe(COUNT);
      expect(fired.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    } finally {
      await db.close();
    }
  }, 240_000);
});
