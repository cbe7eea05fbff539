import { defineConfig } from 'vitest/config';
import { databaseFreeSuites, isolatedSuites } from './test/suites.js';

const unitSuites = databaseFreeSuites();
const isolated = isolatedSuites();

/**
 * `npm test`: four projects, in three groups one after the other.
 * - unit: the service's and the SDK's node tests that touch no database (test/suites.ts decides
 *   which), with no global setup.
 * - service: the server's suites that need a database, Redis or a whole server, in forked
 *   processes after the global setup has built the SDK and the dashboard and migrated the
 *   template database; each worker keeps one module graph for all its files (`isolate: false`).
 *   service-isolated: the few of them that mock a module (test/suites.ts `isolatedSuites`), each
 *   in a module graph of its own. On PostgreSQL (DATABASE_URL, REDIS_URL) only these two differ
 *   from the embedded run: `npm test -- --project service --project service-isolated`.
 * - dashboard: the dashboard's unit and component tests (`packages/dashboard/src/**\/*.test.{ts,tsx}`)
 *   in a DOM (happy-dom) with Testing Library: no build, no database, no server.
 * One project alone: `npx vitest run --project dashboard` (or by path: `npx vitest run packages/dashboard`).
 */
const SERVICE_SUITES = ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'];
const SERVICE_SETTINGS = {
  globalSetup: ['test/global-setup.ts', 'test/global-setup-database.ts'],
  pool: 'forks' as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // Worker counts are the root's (a project cannot set them). PGlite is WASM and CPU-heavy at
    // start; two cores run two files at a time well.
    poolOptions: { forks: { maxForks: 2, minForks: 1 }, threads: { maxThreads: 2, minThreads: 1 } },
    projects: [
      {
        test: {
          name: 'unit',
          include: unitSuites,
          pool: 'forks',
          isolate: false,
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'service',
          include: SERVICE_SUITES,
          exclude: ['packages/dashboard/**', '**/node_modules/**', ...unitSuites, ...isolated],
          ...SERVICE_SETTINGS,
          // One module graph per worker: the app's modules load once per worker, not per file.
          isolate: false,
          // the projects run one after the other: the dashboard's workers never compete with these
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'service-isolated',
          include: isolated.length > 0 ? isolated : ['no-such-suite'],
          ...SERVICE_SETTINGS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'dashboard',
          include: ['packages/dashboard/src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['packages/dashboard/src/test/setup.ts'],
          pool: 'threads',
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
