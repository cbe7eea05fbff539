import { defineConfig } from 'vitest/config';

/**
 * `npm test`: two projects, one after the other.
 * - service: the server's suites and the packages' node tests (`*.test.ts`), in forked processes
 *   after the global setup has built the SDK and the dashboard.
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
          name: 'service',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
          exclude: ['packages/dashboard/**', '**/node_modules/**'],
          globalSetup: ['test/global-setup.ts', 'test/global-setup-database.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // the projects run one after the other: the dashboard's workers never compete with these
          sequence: { groupOrder: 0 },
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
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
