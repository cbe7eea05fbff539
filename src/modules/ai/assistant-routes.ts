import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import { askAssistant, getConversation, listConversations } from './assistant.js';
import {
  conversationList,
  conversationResponse,
  listConversationsQuery,
  queryBody,
  queryResponse,
} from './schemas.js';

const tags = ['ai'];

/** Asking needs EDITOR (it uses AI); every member reads the conversations. */
export const assistantRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/ai/query',
    {
      config: { auth: requireRole('EDITOR') },
      schema: {
        tags,
        summary: "Ask the knowledge base: an answer grounded in the tenant's articles, with citations",
        description:
          'Answers from the knowledge base, with the articles used as citations; says it does not know when no article is relevant (without a provider call). Stores the exchange in the conversation.',
        body: queryBody,
        response: { 200: queryResponse, ...errors(400, 401, 402, 403, 404, 500) },
      },
    },
    async (request) => ({ data: await askAssistant(ctxOf(request), app.deps, request.body) }),
  );

  app.get(
    '/api/ai/conversations',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags,
        summary: "List the tenant's AI conversations",
        querystring: listConversationsQuery,
        response: { 200: conversationList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listConversations(ctxOf(request), request.query),
  );

  app.get(
    '/api/ai/conversations/:id',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags,
        summary: 'Get one AI conversation with its messages',
        params: idParams,
        response: { 200: conversationResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getConversation(ctxOf(request), request.params.id) }),
  );
};
