import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { API_KEY } from '../../platform/auth/guard.js';
import { errors } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import { createEventWriter, type EventWriter } from './event-writer.js';
import { eventsAccepted, eventsBody } from './events-schema.js';
import { normalizeEvents, toPendingBatch } from './ingest.js';

export const EVENT_PROCESSOR = 'event-processor';

/**
 * Wakes the event processor after commits, at most once per `ms`: under load the processor then
 * finds several batches per chunk (set-based effects cost per statement, not per event) instead
 * of one chunk per commit; at rest the first commit wakes it at once.
 */
export function throttledWake(wake: () => void, ms: number): () => void {
  let last = 0;
  let timer: NodeJS.Timeout | null = null;
  return () => {
    if (timer) return;
    const wait = last + ms - Date.now();
    if (wait <= 0) {
      last = Date.now();
      wake();
      return;
    }
    timer = setTimeout(() => {
      timer = null;
      last = Date.now();
      wake();
    }, wait);
    timer.unref();
  };
}

/** At most one processor wake per this many milliseconds (see throttledWake). */
export const PROCESSOR_WAKE_MS = 50;

/** The app's one group-commit event writer (shared by events, identify and session); drained on close. */
export function createAppEventWriter(app: FastifyInstance): EventWriter {
  const { database } = app.deps;
  const writer = createEventWriter({
    database,
    maxInFlight: database.kind === 'postgres' ? 4 : 1,
    defer: database.kind === 'pglite',
    onCommitted: throttledWake(() => app.deps.wakeWorker(EVENT_PROCESSOR), PROCESSOR_WAKE_MS),
  });
  app.addHook('onClose', () => writer.drain());
  return writer;
}

/** POST /api/sdk/events: validate, store durably through group commit, answer 202. Processing is asynchronous. */
export const eventRoutes: FastifyPluginAsyncZod<{ writer?: EventWriter }> = async (app, opts) => {
  const writer = opts.writer ?? createAppEventWriter(app);

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
