import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { aiConfigRoutes } from './config-routes.js';

/** Every route of the AI module. */
export const aiRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(aiConfigRoutes);
};
