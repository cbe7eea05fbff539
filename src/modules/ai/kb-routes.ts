import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams } from '../../platform/http/schemas.js';
import { AI_EMBEDDINGS_JOB } from './embeddings.js';
import { createArticle, deleteArticle, getArticle, listArticles, updateArticle } from './knowledge-base.js';
import {
  articleList,
  articleResponse,
  createArticleBody,
  listArticlesQuery,
  updateArticleBody,
} from './schemas.js';

const tags = ['ai'];
const reader = { auth: requireRole('VIEWER') };
const writer = { auth: requireRole('EDITOR') };

/** Knowledge-base articles: every member reads them, EDITOR and above write them. */
export const kbRoutes: FastifyPluginAsyncZod = async (app) => {
  // Articles are embedded in the background (where vector retrieval is available): wake the job.
  const embedSoon = () => app.deps.wakeWorker(AI_EMBEDDINGS_JOB);

  app.get(
    '/api/ai/knowledge-base',
    {
      config: reader,
      schema: {
        tags,
        summary: 'List or search knowledge-base articles (full text)',
        operationId: 'listKnowledgeBaseArticles',
        querystring: listArticlesQuery,
        response: { 200: articleList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listArticles(ctxOf(request), request.query),
  );

  app.post(
    '/api/ai/knowledge-base',
    {
      config: writer,
      schema: {
        tags,
        summary: 'Create a knowledge-base article',
        operationId: 'createKnowledgeBaseArticle',
        body: createArticleBody,
        response: { 201: articleResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const article = await createArticle(ctxOf(request), request.body);
      embedSoon();
      return reply.code(201).send({ data: article });
    },
  );

  app.get(
    '/api/ai/knowledge-base/:id',
    {
      config: reader,
      schema: {
        tags,
        summary: 'Get a knowledge-base article',
        operationId: 'getKnowledgeBaseArticle',
        params: idParams,
        response: { 200: articleResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getArticle(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/ai/knowledge-base/:id',
    {
      config: writer,
      schema: {
        tags,
        summary: 'Update a knowledge-base article',
        operationId: 'updateKnowledgeBaseArticle',
        params: idParams,
        body: updateArticleBody,
        response: { 200: articleResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const article = await updateArticle(ctxOf(request), request.params.id, request.body);
      embedSoon();
      return { data: article };
    },
  );

  app.delete(
    '/api/ai/knowledge-base/:id',
    {
      config: writer,
      schema: {
        tags,
        summary: 'Delete a knowledge-base article',
        operationId: 'deleteKnowledgeBaseArticle',
        params: idParams,
        response: { 204: emptyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteArticle(ctxOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
