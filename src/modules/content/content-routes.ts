import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { dataOf, errors, idParams, listOf } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import {
  CONTENT_TYPE_LIST,
  type ContentTypeDef,
  createBodyOf,
  listItem,
  patchBodyOf,
  recordOf,
} from './definitions.js';
import { CONTENT_ACTIONS } from './lifecycle.js';
import { listSurveyResponses } from './responses.js';
import { contentListQuery, surveyResponseList } from './schemas.js';
import {
  type ContentInput,
  changeContentState,
  createContent,
  getContent,
  listContent,
  updateContent,
} from './service.js';

const read = { auth: requireRole('VIEWER') };
const write = { auth: requireRole('EDITOR') };

/**
 * `/api/content/:type/...` for the six types, one set of routes per type so that each has its
 * own request and response schemas (and OpenAPI entry). Any other `:type` is an unknown route:
 * 404 NOT_FOUND.
 */
export const contentTypeRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const def of CONTENT_TYPE_LIST) registerType(def);

  function registerType(def: ContentTypeDef) {
    const base = `/api/content/${def.slug}`;
    const tags = [`content: ${def.slug}`];
    const one = dataOf(recordOf(def));

    app.get(
      base,
      {
        config: read,
        schema: {
          tags,
          querystring: contentListQuery,
          response: { 200: listOf(listItem), ...errors(400, 401, 403) },
        },
      },
      async (request) => listContent(ctxOf(request), def, request.query),
    );

    app.post(
      base,
      {
        config: write,
        schema: { tags, body: createBodyOf(def), response: { 201: one, ...errors(400, 401, 403) } },
      },
      async (request, reply) => {
        const item = await createContent(ctxOf(request), def, request.body as ContentInput);
        return reply.code(201).send({ data: item });
      },
    );

    app.get(
      `${base}/:id`,
      {
        config: read,
        schema: { tags, params: idParams, response: { 200: one, ...errors(401, 403, 404) } },
      },
      async (request) => ({ data: await getContent(ctxOf(request), def, request.params.id) }),
    );

    app.patch(
      `${base}/:id`,
      {
        config: write,
        schema: {
          tags,
          params: idParams,
          body: patchBodyOf(def),
          response: { 200: one, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({
        data: await updateContent(ctxOf(request), def, request.params.id, request.body as ContentInput),
      }),
    );

    app.delete(
      `${base}/:id`,
      {
        config: write,
        schema: {
          tags,
          summary: `Archive (soft delete) a ${def.label.toLowerCase()}`,
          params: idParams,
          response: { 200: one, ...errors(401, 403, 404) },
        },
      },
      async (request) => ({
        data: await changeContentState(ctxOf(request), def, request.params.id, 'archive'),
      }),
    );

    for (const action of CONTENT_ACTIONS.filter((a) => a !== 'archive')) {
      app.post(
        `${base}/:id/${action}`,
        {
          config: write,
          schema: { tags, params: idParams, response: { 200: one, ...errors(401, 403, 404, 409) } },
        },
        async (request) => ({
          data: await changeContentState(ctxOf(request), def, request.params.id, action),
        }),
      );
    }
  }

  app.get(
    '/api/content/surveys/:id/responses',
    {
      config: read,
      schema: {
        tags: ['content: surveys'],
        params: idParams,
        querystring: paginationQuery(),
        response: { 200: surveyResponseList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => listSurveyResponses(ctxOf(request), request.params.id, request.query),
  );
};
