import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import { registerVersionRoutes } from '../versions/index.js';
import {
  audienceList,
  audienceResponse,
  createAudienceBody,
  evaluateAudienceBody,
  evaluationResponse,
  listAudiencesQuery,
  updateAudienceBody,
} from './schemas.js';
import {
  audienceVersions,
  createAudience,
  deleteAudience,
  evaluateAudience,
  getAudience,
  listAudiences,
  restoreAudience,
  updateAudience,
} from './service.js';

const tags = ['audiences'];
const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

export const audienceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/audiences',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'List audiences',
        querystring: listAudiencesQuery,
        response: { 200: audienceList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listAudiences(ctxOf(request), request.query),
  );

  app.post(
    '/api/audiences',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create an audience',
        body: createAudienceBody,
        response: { 201: audienceResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createAudience(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/audiences/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get an audience',
        params: idParams,
        response: { 200: audienceResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getAudience(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/audiences/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update an audience',
        params: idParams,
        body: updateAudienceBody,
        response: { 200: audienceResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: await updateAudience(ctxOf(request), request.params.id, request.body) }),
  );

  app.delete(
    '/api/audiences/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Delete an audience (soft delete)',
        description: 'Soft delete; 409 AUDIENCE_IN_USE (details: [{ type, id, name }]) while referenced.',
        params: idParams,
        response: { 200: audienceResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => ({
      data: await deleteAudience(ctxOf(request), request.params.id, app.deps.references),
    }),
  );

  app.post(
    '/api/audiences/:id/restore',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Restore a deleted audience',
        description:
          'Brings a soft-deleted audience back; 409 INVALID_STATE_TRANSITION when it is not deleted.',
        params: idParams,
        response: { 200: audienceResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await restoreAudience(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/audiences/:id/evaluate',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Evaluate an audience against a user context',
        params: idParams,
        body: evaluateAudienceBody,
        response: { 200: evaluationResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await evaluateAudience(ctxOf(request), request.params.id, request.body),
    }),
  );

  registerVersionRoutes(app, audienceVersions);
};
