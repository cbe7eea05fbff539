import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import {
  createDeletionBody,
  deletionList,
  deletionResponse,
  exportParams,
  exportResponse,
  listDeletionsQuery,
} from './schemas.js';
import { exportEndUser, getDeletion, listDeletions, requestDeletion } from './service.js';

const tags = ['privacy'];
const admin = { auth: requireRole('ADMIN') };

export const privacyRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = app.deps;

  app.post(
    '/api/privacy/deletions',
    {
      config: admin,
      schema: {
        tags,
        summary: "Request the deletion of an end user's data (by the SDK's userId); a job erases it",
        body: createDeletionBody,
        response: { 202: deletionResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ data: await requestDeletion(ctxOf(request), deps, request.body) }),
  );

  app.get(
    '/api/privacy/deletions',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List deletion requests, newest first',
        querystring: listDeletionsQuery,
        response: { 200: deletionList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listDeletions(ctxOf(request), request.query),
  );

  app.get(
    '/api/privacy/deletions/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get a deletion request (its progress)',
        params: idParams,
        response: { 200: deletionResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getDeletion(ctxOf(request), request.params.id) }),
  );

  app.get(
    '/api/privacy/exports/:userId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Export everything stored about an end user (by the SDK userId), as JSON',
        params: exportParams,
        response: { 200: exportResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: await exportEndUser(ctxOf(request), request.params.userId) }),
  );
};
