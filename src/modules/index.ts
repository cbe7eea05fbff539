import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthRoutes } from './health/routes.js';

/**
 * Every domain's routes, in one list. A module registers its routes, and at registration time
 * may add to shared registries on `app.deps` (reference finders).
 */
const modules: FastifyPluginAsyncZod[] = [healthRoutes];

export async function registerModules(app: FastifyInstance): Promise<void> {
  for (const routes of modules) await app.register(routes);
}
