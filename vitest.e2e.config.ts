import { defineConfig } from 'vitest/config';

/**
 * Browser tests (`npm run test:e2e`): the real service, Debian's Chromium (playwright-core), host
 * pages on another origin. One file at a time: each starts a service and a browser.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
