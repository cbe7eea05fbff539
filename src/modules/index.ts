import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiKeyRoutes } from './api-keys/routes.js';
import { healthRoutes } from './health/routes.js';
import { sdkRoutes } from './sdk/routes.js';

/**
 * Every domain's routes, in one list. A module registers its routes, and at registration time
 * may add to shared registries on `app.deps` (reference finders).
 */
const modules: FastifyPluginAsyncZod[] = [healthRoutes, apiKeyRoutes, sdkRoutes];

export async function registerModules(app: FastifyInstance): Promise<void> {
  for (const routes of modules) await app.register(routes);
}
