import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors } from '../../platform/http/schemas.js';
import { deleteAiConfig, getAiConfig, saveAiConfig, toggleAiConfig } from './config-service.js';
import { aiConfigOrNull, aiConfigResponse, saveAiConfigBody, toggleAiConfigBody } from './schemas.js';

const tags = ['ai'];

/** Every member reads the configuration (masked); OWNER and ADMIN change it. */
export const aiConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/ai-config',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags,
        summary: 'The AI provider configuration (masked key), or null',
        response: { 200: aiConfigOrNull, ...errors(401, 403) },
      },
    },
    async (request) => ({ data: await getAiConfig(ctxOf(request)) }),
  );

  app.post(
    '/api/ai-config',
    {
      config: { auth: requireRole('ADMIN') },
      schema: {
        tags,
        summary: 'Configure the AI provider: the key is verified, then stored encrypted',
        description:
          'Creates (201) or replaces (200) the provider configuration. The key is verified with the provider first: refused → 400 AI_KEY_INVALID and nothing is stored.',
        body: saveAiConfigBody,
        response: { 200: aiConfigResponse, 201: aiConfigResponse, ...errors(400, 401, 403, 500) },
      },
    },
    async (request, reply) => {
      const { created, record } = await saveAiConfig(ctxOf(request), app.deps, request.body);
      return reply.code(created ? 201 : 200).send({ data: record });
    },
  );

  app.post(
    '/api/ai-config/toggle',
    {
      config: { auth: requireRole('ADMIN') },
      schema: {
        tags,
        summary: 'Switch AI features on or off (the configuration is kept)',
        description: 'Turns every AI feature off or on; the configuration is kept.',
        body: toggleAiConfigBody,
        response: { 200: aiConfigResponse, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await toggleAiConfig(ctxOf(request), request.body.enabled) }),
  );

  app.delete(
    '/api/ai-config',
    {
      config: { auth: requireRole('ADMIN') },
      schema: {
        tags,
        summary: 'Remove the AI provider configuration',
        description: 'Removes the configuration and its stored key.',
        response: { 204: emptyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteAiConfig(ctxOf(request));
      return reply.code(204).send(null);
    },
  );
};
