import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import {
  flowAnalyticsResponse,
  flowParams,
  heatmapQuery,
  heatmapResponse,
  overviewResponse,
  rangeQuery,
} from './schemas.js';
import { getFlowAnalytics, getHeatmap, getOverview } from './service.js';

const tags = ['analytics'];
const viewer = { auth: requireRole('VIEWER') };

/** Read-only analytics over the rollups that event processing maintains (fresh within a second). */
export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/analytics/overview',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get the analytics overview of a date range',
        querystring: rangeQuery,
        response: { 200: overviewResponse, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await getOverview(ctxOf(request), request.query) }),
  );

  app.get(
    '/api/analytics/flows/:flowId',
    {
      config: viewer,
      schema: {
        tags,
        summary: "Get a flow's analytics (funnel and step drop-off)",
        params: flowParams,
        querystring: rangeQuery,
        response: { 200: flowAnalyticsResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await getFlowAnalytics(ctxOf(request), request.params.flowId, request.query),
    }),
  );

  app.get(
    '/api/analytics/heatmaps',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get the click heatmap of a page',
        querystring: heatmapQuery,
        response: { 200: heatmapResponse, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await getHeatmap(ctxOf(request), request.query) }),
  );
};
