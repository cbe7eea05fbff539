import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { CONTENT_ACTIONS, type ContentAction } from './lifecycle.js';
import {
  changeNpsSurveyState,
  createNpsSurvey,
  getNpsResults,
  getNpsSurvey,
  listNpsResponses,
  listNpsSurveys,
  updateNpsSurvey,
} from './nps-service.js';
import {
  contentListQuery,
  createNpsSurveyBody,
  npsResponseList,
  npsResults,
  npsResultsQuery,
  npsSurveyList,
  npsSurveyResponse,
  patchNpsSurveyBody,
} from './schemas.js';

const tags = ['nps-surveys'];

type StateAction = Exclude<ContentAction, 'archive'>;
const ACTION_SUMMARY: Record<StateAction, string> = {
  publish: 'Publish an NPS survey',
  unpublish: 'Unpublish an NPS survey (back to draft)',
  restore: 'Restore an archived NPS survey (back to draft)',
};
const read = { auth: requireRole('VIEWER') };
const write = { auth: requireRole('EDITOR') };

/** `/api/nps-surveys`: a sibling of the content routes with the same lifecycle. */
export const npsSurveyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/nps-surveys',
    {
      config: read,
      schema: {
        tags,
        summary: 'List NPS surveys',
        querystring: contentListQuery,
        response: { 200: npsSurveyList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listNpsSurveys(ctxOf(request), request.query),
  );

  app.post(
    '/api/nps-surveys',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an NPS survey',
        body: createNpsSurveyBody,
        response: { 201: npsSurveyResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createNpsSurvey(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/nps-surveys/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get an NPS survey',
        params: idParams,
        response: { 200: npsSurveyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getNpsSurvey(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/nps-surveys/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an NPS survey',
        params: idParams,
        body: patchNpsSurveyBody,
        response: { 200: npsSurveyResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await updateNpsSurvey(ctxOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/api/nps-surveys/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Archive (soft delete) an NPS survey',
        params: idParams,
        response: { 200: npsSurveyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({
      data: await changeNpsSurveyState(ctxOf(request), request.params.id, 'archive'),
    }),
  );

  for (const action of CONTENT_ACTIONS.filter((a): a is StateAction => a !== 'archive')) {
    app.post(
      `/api/nps-surveys/:id/${action}`,
      {
        config: write,
        schema: {
          tags,
          summary: ACTION_SUMMARY[action],
          params: idParams,
          response: { 200: npsSurveyResponse, ...errors(401, 403, 404, 409) },
        },
      },
      async (request) => ({
        data: await changeNpsSurveyState(ctxOf(request), request.params.id, action),
      }),
    );
  }

  app.get(
    '/api/nps-surveys/:id/responses',
    {
      config: read,
      schema: {
        tags,
        summary: "List an NPS survey's responses",
        params: idParams,
        querystring: paginationQuery(),
        response: { 200: npsResponseList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => listNpsResponses(ctxOf(request), request.params.id, request.query),
  );

  app.get(
    '/api/nps-surveys/:id/results',
    {
      config: read,
      schema: {
        tags,
        summary: "Get an NPS survey's results",
        params: idParams,
        querystring: npsResultsQuery,
        response: { 200: npsResults, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: await getNpsResults(ctxOf(request), request.params.id, request.query) }),
  );
};
