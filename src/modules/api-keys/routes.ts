import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams } from '../../platform/http/schemas.js';
import { apiKeyList, apiKeyResponse, createApiKeyBody, createdApiKey, listApiKeysQuery } from './schemas.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './service.js';

const tags = ['api-keys'];
const admin = { auth: requireRole('ADMIN') };

export const apiKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/tenants/api-keys',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List API keys',
        querystring: listApiKeysQuery,
        response: { 200: apiKeyList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listApiKeys(ctxOf(request), request.query),
  );

  app.post(
    '/api/tenants/api-keys',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create an API key (the key is shown only once)',
        body: createApiKeyBody,
        response: { 201: createdApiKey, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const key = await createApiKey(ctxOf(request), request.body);
      return reply.code(201).send({
        data: {
          id: key.id,
          name: key.name,
          key: key.key,
          keyPrefix: key.keyPrefix,
          createdAt: key.createdAt,
          expiresAt: key.expiresAt,
        },
        warning: 'Store this key now: it is shown only once and cannot be recovered.',
      });
    },
  );

  app.get(
    '/api/tenants/api-keys/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get an API key',
        params: idParams,
        response: { 200: apiKeyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getApiKey(ctxOf(request), request.params.id) }),
  );

  app.delete(
    '/api/tenants/api-keys/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Revoke an API key',
        params: idParams,
        response: { 204: emptyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(ctxOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
