import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { contentTypeRoutes } from './content-routes.js';
import { surveyResponseExportRoutes } from './export-routes.js';
import { npsSurveyRoutes } from './nps-routes.js';

/**
 * The content module: six content types under /api/content/:type, NPS surveys under
 * /api/nps-surveys.
 */
export const contentRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(surveyResponseExportRoutes);
  await app.register(contentTypeRoutes);
  await app.register(npsSurveyRoutes);
};
