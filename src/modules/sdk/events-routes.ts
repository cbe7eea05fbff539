import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { API_KEY } from '../../platform/auth/guard.js';
import { errors } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import { createEventWriter } from './event-writer.js';
import { eventsAccepted, eventsBody } from './events-schema.js';
import { normalizeEvents, toPendingBatch } from './ingest.js';

export const EVENT_PROCESSOR = 'event-processor';

/** POST /api/sdk/events: validate, store durably through group commit, answer 202. Processing is asynchronous. */
export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { database } = app.deps;
  const writer = createEventWriter({
    database,
    maxInFlight: database.kind === 'postgres' ? 4 : 1,
    onCommitted: () => app.deps.wakeWorker(EVENT_PROCESSOR),
  });
  app.addHook('onClose', () => writer.drain());

  // navigator.sendBeacon sends text/plain; its body is the same JSON (with `_apiKey` inside).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, parseJson);

  app.post(
    '/api/sdk/events',
    {
      config: { auth: API_KEY },
      schema: {
        tags: ['sdk'],
        summary: 'Submit a batch of analytics events (202 once durably stored)',
        security: [{ apiKey: [] }],
        body: eventsBody,
        response: { 202: eventsAccepted, ...errors(400, 401, 413, 429) },
      },
    },
    async (request, reply) => {
      const correlationId = newId();
      request.correlationId = correlationId;
      reply.header('X-Correlation-Id', correlationId);
      const receivedAt = app.deps.clock();
      const events = normalizeEvents(request.body.events, receivedAt);
      await writer.write(toPendingBatch(request.sdk!, correlationId, receivedAt, events));
      return reply.code(202).send({ data: { accepted: events.length, correlationId } });
    },
  );
};
