import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unpublishTaskListsForFlow } from './bulk.js';
import { contentTypeRoutes } from './content-routes.js';
import { npsSurveyRoutes } from './nps-routes.js';
import { findAudienceReferrers } from './references.js';

/**
 * The content module: six content types under /api/content/:type, NPS surveys under
 * /api/nps-surveys, and the hooks other modules call (audience referrers, flow dependents).
 */
export const contentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { references, clock } = app.deps;
  references.registerFinder('audience', 'content', findAudienceReferrers);
  references.registerDisabler('flow', 'task-lists', (exec, tenantId, flowId) =>
    unpublishTaskListsForFlow(exec, tenantId, flowId, new Date(clock())),
  );
  await app.register(contentTypeRoutes);
  await app.register(npsSurveyRoutes);
};
