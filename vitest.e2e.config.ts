import { defineConfig } from 'vitest/config';

/**
 * Browser tests (`npm run test:e2e`): the real service, Debian's Chromium (playwright-core), host
 * pages on another origin. Two files at a time: each starts its own service (on a free port) and
 * browser, and much of a browser test's time is waiting (polls, debounces, the SDK's timers), so
 * two overlap well on two cores.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
