import { performance } from 'node:perf_hooks';
import { createTestDatabase } from '../test/helpers/database.js';
import { harnessEventsBody, startInProcessApp } from '../test/helpers/in-process.js';
import { seedQuery } from '../test/helpers/standalone.js';

/**
 * Event retention on PostgreSQL (docs/retention.md): N events (default 10,000,000) stored as the
 * SDK sends them, 50 a batch (one log row each, the harness's body), received evenly over the
 * last 400 days by two tenants: 70 % an enterprise tenant (365 days kept), 30 % a free one (30
 * days). Month partitions are made first, as the job keeps them in steady state. Then:
 *  1. the retention job, timed as it runs (drops the months past 365 days, DELETEs the free
 *     tenant's rows older than 30 days from the months kept);
 *  2. the two ways to remove one whole month, side by side on months of equal size: batched
 *     DELETEs (500 rows a statement, as the job trims shorter retentions) then the VACUUM that
 *     gives the space back, against DROP TABLE of the partition;
 *  3. what the partitions cost the log's hot statements (the writer's INSERT of 50 batches, the
 *     processor's hand-over claim), against a plain copy of the log: medians of 500 rounds.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/retention.ts [N] [events per row]
 */
/** Events per log row: 50 as the SDK sends them; a second argument changes it (1: a row per event). */
const PER_BATCH = Number(process.argv[3] ?? 50);
const SPAN_DAYS = 400;
const SEED_CHUNK = 10_000; // batches per INSERT
const DELETE_BATCH = 500;
const DAY_MS = 86_400_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const rate = (events: number, ms: number) =>
  `${Math.round(events / (ms / 1000)).toLocaleString('en')} events/s`;

async function main() {
  if (!process.env.DATABASE_URL) throw new Error('bench/retention.ts measures PostgreSQL: set DATABASE_URL');
  const total = Number(process.argv[2] ?? 10_000_000);
  const batches = Math.ceil(total / PER_BATCH);
  const database = await createTestDatabase();
  const big = await startInProcessApp({ db: database });
  const db = big.deps.database.db;
  const q = <T>(text: string, params: unknown[] = []) => seedQuery<T>(db, text, params);
  try {
    // The second tenant, on the free plan, straight in the tables the job reads.
    const [small] = await q<{ tenantId: string }>(
      `insert into tenants (id, name, slug) values (gen_random_uuid(), 'Bench free', 'bench-free') returning id as "tenantId"`,
    );
    await q(
      `insert into subscriptions (tenant_id, plan_id, current_period_start, current_period_end)
       select $1, id, now(), now() + interval '1 month' from plans where name = 'free'`,
      [small!.tenantId],
    );
    const now = Date.now();
    const start = new Date(now - SPAN_DAYS * DAY_MS);
    for (let m = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1)); m.getTime() <= now; ) {
      await q('select event_batches_add_month($1::date)', [m.toISOString().slice(0, 10)]);
      m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1));
    }

    const seedStart = performance.now();
    const body = JSON.parse(harnessEventsBody(PER_BATCH)).events;
    const text = JSON.stringify(body);
    for (let from = 0; from < batches; from += SEED_CHUNK) {
      const n = Math.min(SEED_CHUNK, batches - from);
      await q(
        `insert into event_batches (id, tenant_id, correlation_id, received_at, event_count, events, source, processed_at)
         select gen_random_uuid(), case when g % 10 < 7 then $1::uuid else $2::uuid end, gen_random_uuid(),
           $3::timestamptz - ((g::float8 / $4) * interval '${SPAN_DAYS} days'), ${PER_BATCH}, $5, 'sdk', now()
         from generate_series(${from}, ${from + n - 1}) g`,
        [big.tenantId, small!.tenantId, new Date(now).toISOString(), batches, text],
      );
    }
    await q('analyze event_batches');
    const [size] = await q<{ total: string }>(
      `select pg_size_pretty(sum(pg_total_relation_size(inhrelid))) as total from pg_inherits
       where inhparent = 'event_batches'::regclass`,
    );
    console.log(
      `seeded ${(batches * PER_BATCH).toLocaleString('en')} events (${batches.toLocaleString('en')} batches, ${size?.total}) over ${SPAN_DAYS} days in ${seconds(performance.now() - seedStart)}`,
    );

    // 1. The job, as it runs.
    const count = async () =>
      Number((await q<{ n: string }>('select count(*) as n from event_batches'))[0]!.n) * PER_BATCH;
    const before = await count();
    const jobStart = performance.now();
    await big.runJob('event-retention');
    const jobMs = performance.now() - jobStart;
    const after = await count();
    const smallLeft = await q<{ oldest: Date }>(
      'select min(received_at) as oldest from event_batches where tenant_id = $1',
      [small!.tenantId],
    );
    console.log(
      `retention job: ${seconds(jobMs)}, removed ${(before - after).toLocaleString('en')} events (${before.toLocaleString('en')} → ${after.toLocaleString('en')}); ` +
        `free tenant's oldest now ${((now - new Date(smallLeft[0]!.oldest).getTime()) / DAY_MS).toFixed(1)} days old`,
    );

    // 2. One month removed both ways, on two kept months of the same length (the enterprise
    // tenant's rows only: the free tenant's are gone from them already).
    const parts = await q<{ name: string; lo: string; hi: string; n: string }>(
      `select c.relname as name, min(b.received_at) as lo, max(b.received_at) as hi, count(*) as n
       from pg_inherits i join pg_class c on c.oid = i.inhrelid join event_batches b on b.tableoid = c.oid
       where i.inhparent = 'event_batches'::regclass and c.relname <> 'event_batches_default'
       group by c.relname order by c.relname`,
    );
    // Two full months well inside the kept range: the 4th and 5th partitions.
    const [viaDelete, viaDrop] = [parts[3]!, parts[4]!];
    const deleteEvents = Number(viaDelete.n) * PER_BATCH;
    const deleteStart = performance.now();
    let statements = 0;
    // As the job's DELETEs (deleteBatchesBefore): the oldest 500, each statement starting where the last ended.
    let from = viaDelete.lo;
    for (;;) {
      const rows = await q<{ received_at: string }>(
        `delete from event_batches where tenant_id = $1 and received_at >= $2 and received_at <= $3
           and (id, received_at) in (select id, received_at from event_batches
             where tenant_id = $1 and received_at >= $2 and received_at <= $3 order by received_at limit ${DELETE_BATCH})
         returning received_at::text`,
        [big.tenantId, from, viaDelete.hi],
      );
      statements++;
      if (rows.length < DELETE_BATCH) break;
      from = rows
        .map((r) => r.received_at)
        .sort()
        .at(-1)!;
    }
    const deleteMs = performance.now() - deleteStart;
    const vacuumStart = performance.now();
    await q(`vacuum ${viaDelete.name}`);
    const vacuumMs = performance.now() - vacuumStart;
    const dropEvents = Number(viaDrop.n) * PER_BATCH;
    const dropStart = performance.now();
    await q(`drop table ${viaDrop.name}`);
    const dropMs = performance.now() - dropStart;
    console.log(
      `one month by batched DELETE (${viaDelete.name}, ${deleteEvents.toLocaleString('en')} events, ${statements} statements): ${seconds(deleteMs)} (${rate(deleteEvents, deleteMs)}), then VACUUM ${seconds(vacuumMs)}`,
    );
    console.log(
      `one month by DROP TABLE (${viaDrop.name}, ${dropEvents.toLocaleString('en')} events): ${seconds(dropMs)} (${rate(dropEvents, dropMs)})`,
    );

    // 3. What partitioning costs the log's hot statements: the writer's multi-row INSERT and the
    // processor's hand-over claim, on the partitioned log against a plain copy of it, each in a
    // transaction rolled back (the tables stay as they are), alternating.
    await q('create table event_batches_plain (like event_batches including all)');
    await q('insert into event_batches_plain select * from event_batches');
    await q('analyze event_batches_plain');
    const [{ n: partitionCount } = { n: '?' }] = await q<{ n: string }>(
      `select count(*) as n from pg_inherits where inhparent = 'event_batches'::regclass`,
    );
    const client = await (big.deps.database.raw as import('pg').Pool).connect();
    try {
      const bodies = Array.from({ length: 50 }, () => text);
      const insertInto = (table: string) =>
        `insert into ${table} (id, tenant_id, correlation_id, received_at, event_count, events, source)
         select gen_random_uuid(), $1, gen_random_uuid(), now(), ${PER_BATCH}, b, 'sdk' from unnest($2::text[]) b
         returning id`;
      const timings: Record<string, number[]> = {};
      const time = async (label: string, run: () => Promise<unknown>) => {
        const t0 = performance.now();
        await run();
        const list = timings[label] ?? [];
        list.push(performance.now() - t0);
        timings[label] = list;
      };
      for (let round = 0; round < 600; round++) {
        for (const table of ['event_batches', 'event_batches_plain']) {
          await client.query('begin');
          const ids = await client.query<{ id: string }>({
            name: `insert-${table}`,
            text: insertInto(table),
            values: [big.tenantId, bodies],
          });
          const since = new Date(Date.now() - 60_000).toISOString();
          const handed = ids.rows.map((r) => r.id);
          await client.query('savepoint claim');
          await time(`hand-over claim by id alone (50 batches), ${table}`, () =>
            client.query({
              name: `claim-id-${table}`,
              text: `update ${table} set processed_at = now() where id in (
                select id from ${table} where id = any($1::uuid[])
                  and processed_at is null and attempts = 0 for update skip locked) returning id`,
              values: [handed],
            }),
          );
          await client.query('rollback to savepoint claim');
          await time(`hand-over claim (50 batches), ${table}`, () =>
            client.query({
              name: `claim-${table}`,
              text: `update ${table} set processed_at = now() where received_at >= $2 and id in (
                select id from ${table} where id = any($1::uuid[]) and received_at >= $2
                  and processed_at is null and attempts = 0 for update skip locked) returning id`,
              values: [handed, since],
            }),
          );
          await client.query('rollback');
          await client.query('begin');
          await time(`insert (50 batches), ${table}`, () =>
            client.query({
              name: `insert-${table}`,
              text: insertInto(table),
              values: [big.tenantId, bodies],
            }),
          );
          await client.query('rollback');
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      for (const [label, xs] of Object.entries(timings)) {
        const on = label.endsWith('_plain') ? 'one table' : `${partitionCount} partitions`;
        console.log(
          `${label.replace(/, event_batches(_plain)?$/, '')} on ${on}: median ${(median(xs.slice(100)) * 1000).toFixed(0)} µs`,
        );
      }
    } finally {
      client.release();
    }
  } finally {
    await big.close();
    await database.close();
  }
}

await main();
