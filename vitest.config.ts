import { defineConfig } from 'vitest/config';
import { databaseFreeSuites } from './test/suites.js';

const unitSuites = databaseFreeSuites();

/**
 * `npm test`: three projects, one after the other.
 * - unit: the service's and the SDK's node tests that touch no database (test/suites.ts decides
 *   which), with no global setup.
 * - service: the server's suites that need a database, Redis or a whole server, in forked
 *   processes after the global setup has built the SDK and the dashboard and migrated the
 *   template database. On PostgreSQL (DATABASE_URL, REDIS_URL) only this project differs from
 *   the embedded run: `npm test -- --project service` runs just it.
 * - dashboard: the dashboard's unit and component tests (`packages/dashboard/src/**\/*.test.{ts,tsx}`)
 *   in a DOM (happy-dom) with Testing Library: no build, no database, no server.
 * One project alone: `npx vitest run --project dashboard` (or by path: `npx vitest run packages/dashboard`).
 */
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
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'service',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
          exclude: ['packages/dashboard/**', '**/node_modules/**', ...unitSuites],
          globalSetup: ['test/global-setup.ts', 'test/global-setup-database.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // the projects run one after the other: the dashboard's workers never compete with these
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
