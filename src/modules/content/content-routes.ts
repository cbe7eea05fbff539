import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import pluralize from 'pluralize';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { dataOf, errors, idParams, listOf } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { publishBody, registerVersionRoutes } from '../versions/index.js';
import {
  CONTENT_DEFS,
  CONTENT_TYPE_LIST,
  type ContentTypeDef,
  createBodyOf,
  listItem,
  patchBodyOf,
  recordOf,
} from './definitions.js';
import { CONTENT_ACTIONS, type ContentAction } from './lifecycle.js';
import { contentListQuery, surveyResponseList } from './schemas.js';
import {
  type ContentInput,
  changeContentState,
  contentVersions,
  createContent,
  getContent,
  listContent,
  listSurveyResponses,
  updateContent,
} from './service.js';

const read = { auth: requireRole('VIEWER') };
const write = { auth: requireRole('EDITOR') };

export const contentTag = (def: ContentTypeDef) => `content: ${def.slug}`;

type StateAction = Exclude<ContentAction, 'archive'>;

/** What an action does, for the operation's summary. */
const actionSummary = (action: StateAction, n: ReturnType<typeof namesOf>): string =>
  ({
    publish: `Publish ${n.article}`,
    unpublish: `Unpublish ${n.article} (back to draft)`,
    restore: `Restore an archived ${n.one} (back to draft)`,
  })[action];

/**
 * The words that name a type's operations and summaries, from its label. OperationIds follow the
 * derived pattern (`getContentTooltips`, `getContentTooltip`) but are spelled out, since the
 * `self-help` slug has no singular to tell one widget from the list.
 */
function namesOf(def: ContentTypeDef) {
  const words = def.label.split(/[\s-]+/);
  const last = words.length - 1;
  const pascal = (ws: string[]) =>
    ws.map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join('');
  const one = def.label.toLowerCase();
  return {
    one,
    many: [...words.slice(0, last), pluralize(words[last]!)].join(' ').toLowerCase(),
    article: /^[aeiou]/.test(one) ? `an ${one}` : `a ${one}`,
    Singular: `Content${pascal(words)}`,
    Plural: `Content${pascal([...words.slice(0, last), pluralize(words[last]!)])}`,
  };
}

/**
 * `/api/content/:type/...` for the six types, one set of routes per type so that each has its
 * own request and response schemas (and OpenAPI entry). Any other `:type` is an unknown route:
 * 404 NOT_FOUND.
 */
export const contentTypeRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const def of CONTENT_TYPE_LIST) registerType(def);

  function registerType(def: ContentTypeDef) {
    const base = `/api/content/${def.slug}`;
    const tags = [contentTag(def)];
    const one = dataOf(recordOf(def));
    const n = namesOf(def);

    app.get(
      base,
      {
        config: read,
        schema: {
          tags,
          operationId: `get${n.Plural}`,
          summary: `List ${n.many}`,
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
        schema: {
          tags,
          operationId: `post${n.Plural}`,
          summary: `Create ${n.article}`,
          body: createBodyOf(def),
          response: { 201: one, ...errors(400, 401, 403) },
        },
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
        schema: {
          tags,
          operationId: `get${n.Singular}`,
          summary: `Get ${n.article}`,
          params: idParams,
          response: { 200: one, ...errors(401, 403, 404) },
        },
      },
      async (request) => ({ data: await getContent(ctxOf(request), def, request.params.id) }),
    );

    app.patch(
      `${base}/:id`,
      {
        config: write,
        schema: {
          tags,
          operationId: `patch${n.Singular}`,
          summary: `Update ${n.article}`,
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
          operationId: `delete${n.Singular}`,
          summary: `Archive (soft delete) ${n.article}`,
          params: idParams,
          response: { 200: one, ...errors(401, 403, 404) },
        },
      },
      async (request) => ({
        data: await changeContentState(ctxOf(request), def, request.params.id, 'archive'),
      }),
    );

    for (const action of CONTENT_ACTIONS.filter((a): a is StateAction => a !== 'archive')) {
      app.post(
        `${base}/:id/${action}`,
        {
          config: write,
          schema: {
            tags,
            operationId: `post${n.Singular}${action.charAt(0).toUpperCase()}${action.slice(1)}`,
            summary: actionSummary(action, n),
            params: idParams,
            ...(action === 'publish' ? { body: publishBody } : {}),
            response: { 200: one, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => ({
          data: await changeContentState(
            ctxOf(request),
            def,
            request.params.id,
            action,
            (request.body as { note?: string } | null | undefined)?.note,
          ),
        }),
      );
    }

    registerVersionRoutes(app, contentVersions(def, n.Singular, tags));
  }

  app.get(
    '/api/content/surveys/:id/responses',
    {
      config: read,
      schema: {
        tags: [contentTag(CONTENT_DEFS.surveys)],
        summary: "List a survey's responses",
        params: idParams,
        querystring: paginationQuery(),
        response: { 200: surveyResponseList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => listSurveyResponses(ctxOf(request), request.params.id, request.query),
  );
};
