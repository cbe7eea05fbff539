import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { assistantRoutes } from './assistant-routes.js';
import { aiConfigRoutes } from './config-routes.js';
import { generationRoutes } from './generation-routes.js';
import { helpRoutes } from './help-routes.js';
import { kbRoutes } from './kb-routes.js';
import { hasVectorSupport } from './vector-support.js';

/** Every route of the AI module. */
export const aiRoutes: FastifyPluginAsyncZod = async (app) => {
  // Vector retrieval is detected once, at boot; without pgvector retrieval is full text alone.
  app.addHook('onReady', async () => {
    const vector = await hasVectorSupport(app.deps.database);
    app.log.info(
      { vector },
      vector ? 'knowledge base: hybrid retrieval (pgvector)' : 'knowledge base: full-text retrieval',
    );
  });
  await app.register(aiConfigRoutes);
  await app.register(kbRoutes);
  await app.register(assistantRoutes);
  await app.register(generationRoutes);
  await app.register(helpRoutes);
};
