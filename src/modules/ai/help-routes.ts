import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { API_KEY } from '../../platform/auth/guard.js';
import { errors } from '../../platform/http/schemas.js';
import { searchHelpArticles } from './help-search.js';
import { helpSearchQuery, helpSearchResponse } from './schemas.js';

/** The knowledge-base search the browser SDK's self-help widget calls from customers' pages. */
export const helpRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/sdk/knowledge-base',
    {
      config: { auth: API_KEY },
      schema: {
        tags: ['sdk'],
        summary: "Search the tenant's knowledge base for the self-help widget (full text; no provider call)",
        description:
          "Needs the plan's `ai` feature (else 403 PLAN_FEATURE_UNAVAILABLE) and a configured (400 AI_NOT_CONFIGURED), enabled (403 AI_DISABLED) provider. Spends no AI tokens.",
        operationId: 'searchSdkKnowledgeBase',
        querystring: helpSearchQuery,
        response: { 200: helpSearchResponse, ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { q, limit } = request.query;
      const hits = await searchHelpArticles(
        app.deps.database.db,
        request.sdk!.tenantId,
        q,
        limit,
        new Date(app.deps.clock()),
      );
      return { data: hits };
    },
  );
};
