import type { Worker } from './runner.js';

/** Every background job of the service. `npm start` runs them in-process unless ROLE=web. */
export const workers: Worker[] = [
  {
    name: 'api-key-last-used',
    intervalMs: 5_000,
    runOnStop: true,
    run: (deps) => deps.apiKeys.flushLastUsed(),
  },
];
