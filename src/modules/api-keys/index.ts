import type { ModuleManifest } from '../../deps.js';
import { apiKeyRoutes } from './routes.js';

export const apiKeysModule: ModuleManifest = {
  name: 'api-keys',
  routes: apiKeyRoutes,
  tags: [{ name: 'api-keys', description: 'API keys the SDK authenticates with' }],
  jobs: [
    {
      // SDK requests note their key's use in memory; one UPDATE writes them every few seconds.
      name: 'api-key-last-used',
      intervalMs: 5_000,
      runOnStop: true,
      run: (deps) => deps.apiKeys.flushLastUsed(),
    },
  ],
};
