import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams } from '../../platform/http/schemas.js';
import {
  createdWebhook,
  createWebhookBody,
  deliveryList,
  deliveryParams,
  deliveryResponse,
  listDeliveriesQuery,
  listWebhooksQuery,
  rotatedSecret,
  updateWebhookBody,
  webhookList,
  webhookResponse,
} from './schemas.js';
import {
  createWebhook,
  deleteWebhookById,
  getWebhook,
  listDeliveries,
  listWebhooks,
  replayDelivery,
  rotateSecret,
  sendTestEvent,
  updateWebhookById,
} from './service.js';

const tags = ['webhooks'];
const admin = { auth: requireRole('ADMIN') };

export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = app.deps;

  app.get(
    '/api/webhooks',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List webhook endpoints',
        querystring: listWebhooksQuery,
        response: { 200: webhookList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listWebhooks(ctxOf(request), request.query),
  );

  app.post(
    '/api/webhooks',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create a webhook endpoint (its signing secret is shown only once)',
        body: createWebhookBody,
        response: { 201: createdWebhook, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const data = await createWebhook(ctxOf(request), deps, request.body);
      return reply.code(201).send({
        data,
        warning: 'Store this signing secret now: it is shown only once and cannot be recovered.',
      });
    },
  );

  app.get(
    '/api/webhooks/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get a webhook endpoint',
        params: idParams,
        response: { 200: webhookResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getWebhook(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/webhooks/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Change a webhook endpoint (url, events, description, enabled)',
        params: idParams,
        body: updateWebhookBody,
        response: { 200: webhookResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await updateWebhookById(ctxOf(request), deps, request.params.id, request.body),
    }),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Delete a webhook endpoint and its delivery log',
        params: idParams,
        response: { 204: emptyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteWebhookById(ctxOf(request), deps, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Rotate the signing secret (the previous one keeps signing for 24 hours)',
        params: idParams,
        response: { 200: rotatedSecret, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await rotateSecret(ctxOf(request), deps, request.params.id) }),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      config: admin,
      schema: {
        tags,
        summary: "List an endpoint's deliveries, newest first",
        params: idParams,
        querystring: listDeliveriesQuery,
        response: { 200: deliveryList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => listDeliveries(ctxOf(request), request.params.id, request.query),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:did/replay',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Send a delivered or failed message again (a new delivery, same webhook-id)',
        params: deliveryParams,
        response: { 202: deliveryResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        data: await replayDelivery(ctxOf(request), deps, request.params.id, request.params.did),
      }),
  );

  app.post(
    '/api/webhooks/:id/test',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Send a webhook.test event to this endpoint',
        params: idParams,
        response: { 202: deliveryResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ data: await sendTestEvent(ctxOf(request), deps, request.params.id) }),
  );
};
