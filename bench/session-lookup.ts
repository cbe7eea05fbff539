import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createSessionLookup } from '../src/modules/delivery/index.js';
import { experimentsModule } from '../src/modules/experiments/index.js';
import { journeysModule } from '../src/modules/journeys/index.js';
import { createStandaloneStore, seedQuery } from '../test/helpers/standalone.js';
import { cpuSeconds } from './process-cpu.js';

/**
 * `npx tsx bench/session-lookup.ts`: the session's one lookup statement (delivery/lookup.ts with
 * the experiments' and journeys' user-state columns), in process, no HTTP: USERS end users, each
 * with an experiment assignment, an in-progress journey enrollment waiting at content, an ended
 * enrollment in an audience-only journey and two item states. Per round it resolves every user
 * one at a time (the one-request statement) and then CONC at once (the batched statement), and
 * prints wall time and CPU per lookup: this process's, and on PostgreSQL the backends' (/proc, so
 * a busy shared machine blurs it less). MODE=postgres|pglite, USERS (2000), ROUNDS (5), CONC (50).
 * Runs unchanged on an older checkout: alternate the two to compare.
 */
const mode = process.env.MODE ?? 'postgres';
const USERS = Number(process.env.USERS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONC = Number(process.env.CONC ?? 50);
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const store = await createStandaloneStore({ serverUrl: mode === 'postgres' ? pgUrl : undefined });
const db = await store.open();
const tenantId = store.tenantId;
try {
  const userIds = Array.from({ length: USERS }, () => randomUUID());
  const experimentId = randomUUID();
  const variants = [randomUUID(), randomUUID()];
  const contentJourney = randomUUID();
  const audienceJourney = randomUUID();
  await db.db.transaction(async (tx) => {
    await seedQuery(
      tx,
      `insert into end_users (id, tenant_id, external_id, traits)
       select u, $1, 'user-' || i, '{"plan":"pro"}' from unnest($2::uuid[]) with ordinality as x (u, i)`,
      [tenantId, userIds],
    );
    await seedQuery(
      tx,
      `insert into experiments (id, tenant_id, name, status, seed, start_date) values ($1::uuid, $2, 'E', 'running', $1::text, now())`,
      [experimentId, tenantId],
    );
    await seedQuery(
      tx,
      `insert into experiment_variants (id, tenant_id, experiment_id, position, name, split_basis_points)
       values ($1, $3, $4, 0, 'A', 5000), ($2, $3, $4, 1, 'B', 5000)`,
      [variants[0], variants[1], tenantId, experimentId],
    );
    await seedQuery(
      tx,
      `insert into experiment_assignments (experiment_id, end_user_id, tenant_id, variant_id, assigned_at)
       select $1, u, $2, $3, now() from unnest($4::uuid[]) as u`,
      [experimentId, tenantId, variants[0], userIds],
    );
    await seedQuery(
      tx,
      `insert into journeys (id, tenant_id, site_id, name, status, settings, trigger_type, audience_id)
       values ($1, $3, $4, 'Content', 'PUBLISHED', '{}', 'CUSTOM_EVENT', null),
              ($2, $3, $4, 'Audience only', 'PUBLISHED', '{}', 'MANUAL', $4)`,
      [contentJourney, audienceJourney, tenantId, randomUUID()],
    );
    const waiting = JSON.stringify({
      kind: 'content',
      nodeId: randomUUID(),
      visit: 1,
      contentType: 'flow',
      contentId: randomUUID(),
    });
    await seedQuery(
      tx,
      `insert into journey_enrollments (id, tenant_id, journey_id, end_user_id, status, state, enrolled_at, ended_at)
       select gen_random_uuid(), $1::uuid, $2::uuid, u, 'in_progress', json_build_object('waiting', $4::json), now(), null from unnest($5::uuid[]) as u
       union all
       select gen_random_uuid(), $1::uuid, $3::uuid, u, 'completed', '{}'::json, now() - interval '1 day', now() from unnest($5::uuid[]) as u`,
      [tenantId, contentJourney, audienceJourney, waiting, userIds],
    );
    await seedQuery(
      tx,
      `insert into end_user_item_states (tenant_id, end_user_id, item_id, completed_at, dismissed_at)
       select $1::uuid, u, gen_random_uuid(), now(), null::timestamptz from unnest($2::uuid[]) as u
       union all select $1::uuid, u, gen_random_uuid(), null, now() from unnest($2::uuid[]) as u`,
      [tenantId, userIds],
    );
  });
  await db.query('analyze');

  const contributors = [...(experimentsModule.delivery ?? []), ...(journeysModule.delivery ?? [])];
  const lookup = createSessionLookup(db, contributors);
  const backends = async () =>
    mode === 'postgres'
      ? (
          await db.query<{ pid: number }>(
            'select pid from pg_stat_activity where datname = current_database()',
          )
        ).map((r) => r.pid)
      : [];
  const who = (i: number) => ({ tenantId, userId: `user-${(i % USERS) + 1}`, now: new Date() });

  // Warm-up: every pool connection prepares the statements.
  for (let i = 0; i < 200; i++) await lookup(who(i));
  await Promise.all(Array.from({ length: 200 }, (_, i) => lookup(who(i))));
  const check = await lookup(who(0));
  if (check.states.get('experiments') === undefined || check.completed.size !== 1)
    throw new Error(`unexpected lookup ${JSON.stringify([...check.states])}`);

  const measure = async (label: string, run: () => Promise<void>) => {
    const pids = await backends();
    const b0 = pids.reduce((s, p) => s + cpuSeconds(p), 0);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const b = pids.reduce((s, p) => s + cpuSeconds(p), 0) - b0;
    const per = (x: number) => ((x * 1e6) / USERS).toFixed(1).padStart(6);
    console.log(
      `${mode} ${label.padEnd(10)} wall ${per(wall / 1000)} µs  node cpu ${per((c.user + c.system) / 1e6)} µs` +
        (mode === 'postgres' ? `  backends cpu ${per(b)} µs` : '') +
        '  per lookup',
    );
  };
  for (let round = 1; round <= ROUNDS; round++) {
    await measure('one', async () => {
      for (let i = 0; i < USERS; i++) await lookup(who(i));
    });
    await measure(`batch ${CONC}`, async () => {
      for (let i = 0; i < USERS; i += CONC)
        await Promise.all(Array.from({ length: Math.min(CONC, USERS - i) }, (_, k) => lookup(who(i + k))));
    });
  }
} finally {
  await db.close();
  await store.destroy();
}
