import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite is WASM and CPU-heavy at start; two cores run two files at a time well.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
