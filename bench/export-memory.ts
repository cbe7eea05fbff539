import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { brotliCompressSync, constants } from 'node:zlib';
import { startServer } from '../test/helpers/server-process.js';
import { createStandaloneStore, seedQuery } from '../test/helpers/standalone.js';

/**
 * Export memory (docs/export.md): seeds N events for one tenant (batches of 50, as the SDK sends
 * them; default 1,000,000 on PostgreSQL when DATABASE_URL is set, 100,000 on PGlite), starts
 * the service as its own process, streams GET /api/events/export through HTTP (NDJSON, then
 * gzip-compressed CSV) and prints rows/s and the server's peak RSS (VmHWM), before and after.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/export-memory.ts [N]
 */
const PER_BATCH = 50;
const SEED_CHUNK = 2_000; // batches per INSERT

const kib = (line: string | undefined) => Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024;
function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => kib(status.split('\n').find((l) => l.startsWith(`${name}:`)));
  return { rssMiB: field('VmRSS'), peakMiB: field('VmHWM') };
}

function body(b: number): string {
  return JSON.stringify(
    Array.from({ length: PER_BATCH }, (_, i) => ({
      type: i % 5 === 0 ? 'PAGE_VIEW' : 'CUSTOM',
      name: i % 5 === 0 ? undefined : `event ${i}`,
      userId: `user-${b % 5000}`,
      sessionId: `session-${b}`,
      url: `https://app.example.com/page/${i % 50}`,
      timestamp: new Date(Date.UTC(2026, 10, 1) + b * 1000 + i).toISOString(),
      properties: { batch: b, index: i, plan: 'pro', label: 'a label, with "quotes"' },
    })),
  );
}

async function main() {
  const pgUrl = process.env.DATABASE_URL || undefined;
  const total = Number(process.argv[2] ?? (pgUrl ? 1_000_000 : 100_000));
  const batches = Math.ceil(total / PER_BATCH);
  const store = await createStandaloneStore({
    serverUrl: pgUrl,
    env: { LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_GLOBAL: '0' },
  });
  try {
    const seedStart = performance.now();
    const db = await store.open();
    const template = body(0);
    for (let from = 0; from < batches; from += SEED_CHUNK) {
      const n = Math.min(SEED_CHUNK, batches - from);
      // Stored processed: the processor leaves them alone. Every batch the same body (the
      // export decodes each one all the same); received a millisecond apart, pairs tied.
      const at = `timestamptz '2026-11-01T00:00:00Z' + (((${from} + g) / 2) * interval '1 millisecond')`;
      if (pgUrl) {
        await seedQuery(
          db.db,
          `insert into event_batches (id, tenant_id, correlation_id, received_at, event_count, events, source, processed_at)
           select gen_random_uuid(), $1, gen_random_uuid(), ${at}, ${PER_BATCH}, $2, 'sdk', now()
           from generate_series(0, ${n - 1}) g`,
          [store.tenantId, template],
        );
      } else {
        const br = brotliCompressSync(template, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
        await seedQuery(
          db.db,
          `insert into event_batches (id, tenant_id, correlation_id, received_at, event_count, events_br, source, processed_at)
           select gen_random_uuid(), $1, gen_random_uuid(), ${at}, ${PER_BATCH}, $2, 'sdk', now()
           from generate_series(0, ${n - 1}) g`,
          [store.tenantId, br],
        );
      }
    }
    await seedQuery(db.db, 'analyze event_batches');
    await db.close();
    console.log(
      `seeded ${batches * PER_BATCH} events (${batches} batches) on ${pgUrl ? 'PostgreSQL' : 'PGlite'} in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    const server = await startServer(store.env);
    try {
      const pid = server.child.pid!;
      const before = memory(pid);
      console.log(
        `server after start: RSS ${before.rssMiB.toFixed(1)} MiB, peak ${before.peakMiB.toFixed(1)} MiB`,
      );
      for (const [format, gzip] of [
        ['ndjson', false],
        ['csv', true],
      ] as const) {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/events/export?format=${format}`, {
          headers: {
            authorization: `Bearer ${store.ownerToken}`,
            'accept-encoding': gzip ? 'gzip' : 'identity',
          },
        });
        if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
        // fetch decompresses gzip itself: count the lines and bytes as the client sees them.
        let lines = 0;
        let bytes = 0;
        let maxRss = 0;
        const sample = setInterval(() => {
          maxRss = Math.max(maxRss, memory(pid).rssMiB);
        }, 200);
        for await (const chunk of res.body!) {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 10) lines++;
        }
        clearInterval(sample);
        const rows = format === 'csv' ? lines - 1 : lines;
        const seconds = (performance.now() - started) / 1000;
        const after = memory(pid);
        console.log(
          `${format}${gzip ? ' (gzip)' : ''}: ${rows} rows, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds)} rows/s; server RSS max sampled ${maxRss.toFixed(1)} MiB, peak (VmHWM) ${after.peakMiB.toFixed(1)} MiB`,
        );
        if (rows !== batches * PER_BATCH) throw new Error(`expected ${batches * PER_BATCH} rows`);
      }
    } finally {
      await server.stop();
    }
  } finally {
    await store.destroy();
  }
}

await main();
