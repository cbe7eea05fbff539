import { performance } from 'node:perf_hooks';
import { startServer } from '../test/helpers/server-process.js';
import { createStandaloneStore } from '../test/helpers/standalone.js';

/**
 * `npx tsx bench/version-storage.ts`: storage of flow versions (docs/versions.md). A 40-step
 * flow is published, then PUBLISHES−1 times one step is edited and the flow published again
 * (through HTTP, a real server process); prints the bytes the snapshots take (the `bytes` of
 * `GET …/versions`: brotli-compressed JSON), against the same snapshots stored as plain JSON,
 * and the time a publish took. MODE=pglite|postgres, PUBLISHES (1000).
 */
const mode = process.env.MODE ?? 'pglite';
const PUBLISHES = Number(process.env.PUBLISHES ?? 1000);
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const store = await createStandaloneStore({
  serverUrl: mode === 'postgres' ? pgUrl : undefined,
  env: { LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_GLOBAL: '100000000' },
});
const server = await startServer(store.env);
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${store.ownerToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
};

try {
  const lorem = 'Click the highlighted button to continue with the setup of your workspace. '.repeat(3);
  const flow = (
    await api('POST', '/api/flows', {
      name: 'Onboarding, 40 steps',
      siteId: '0190f3a2-0000-7000-8000-000000000001',
      template: 'PRODUCT_TOUR',
      steps: Array.from({ length: 40 }, (_, i) => ({
        type: i % 3 === 0 ? 'MODAL' : 'TOOLTIP',
        targetSelector: i % 3 === 0 ? undefined : `#step-${i} .target`,
        content: { title: `Step ${i + 1}`, body: lorem, buttonText: 'Next' },
        settings: { placement: 'bottom', showProgress: true, backdrop: i % 2 === 0 },
      })),
    })
  ).data as { id: string; steps: { id: string }[] };
  await api('POST', `/api/flows/${flow.id}/publish`);
  const started = performance.now();
  for (let i = 1; i < PUBLISHES; i++) {
    const step = flow.steps[i % 40]!;
    await api('PATCH', `/api/flows/${flow.id}/steps/${step.id}`, {
      content: { title: `Step ${(i % 40) + 1} (rev ${i})`, body: lorem, buttonText: 'Next' },
    });
    await api('POST', `/api/flows/${flow.id}/publish`);
  }
  const perPublish = (performance.now() - started) / Math.max(1, PUBLISHES - 1) / 2;
  const versions = (await api('GET', `/api/flows/${flow.id}/versions`)).data as {
    version: number;
    bytes: number;
  }[];
  const stored = versions.reduce((sum, v) => sum + v.bytes, 0);
  const last = (await api('GET', `/api/flows/${flow.id}/versions/${versions[0]!.version}`)).data;
  const plain = Buffer.byteLength(JSON.stringify(last.snapshot));
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
  console.log(
    [
      `| mode | versions | stored (compressed) | per version | as plain JSON | ratio | ms per edit or publish |`,
      `| ${mode} | ${versions.length} | ${mib(stored)} | ${(stored / versions.length).toFixed(0)} B | ${mib(plain * versions.length)} (${plain} B each) | ${((plain * versions.length) / stored).toFixed(1)}× | ${perPublish.toFixed(1)} |`,
    ].join('\n'),
  );
} finally {
  await server.stop();
  await store.destroy();
}
