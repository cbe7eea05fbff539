import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type FastifyPluginAsyncZod, validatorCompiler } from 'fastify-type-provider-zod';
import { API_KEY } from '../../platform/auth/guard.js';
import { jsonBodyParser } from '../../platform/http/json-body.js';
import { errors, JSON_UTF8 } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import { eventsBodyValidator } from './body-check.js';
import { toPendingBatch } from './decode.js';
import { checkEffectOrder } from './effect.js';
import { eventExportRoutes } from './export.js';
import { EVENT_PROCESSOR } from './processor.js';
import { createEventRecorder, type EventRecorder } from './recorder.js';
import { eventsAccepted, eventsBody } from './schema.js';
import { eventsState } from './state.js';
import { createEventWriter, type EventWriter } from './writer.js';

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

/** The app's one event log: a group-commit writer, and the recorder of events the service records itself. */
export interface EventLog {
  writer: EventWriter;
  recorder: EventRecorder;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Shared by the events route and the SDK's identify and session (one group commit for all). */
    eventLog: EventLog;
  }
}

function createAppEventWriter(app: FastifyInstance): EventWriter {
  const { database } = app.deps;
  const wake = throttledWake(() => app.deps.wakeWorker(EVENT_PROCESSOR), PROCESSOR_WAKE_MS);
  const state = eventsState(app.deps);
  const { handoff } = state;
  const writer = createEventWriter({
    database,
    onCommitted: (batches) => {
      state.hotPathActiveAt = Date.now();
      if (handoff) {
        for (const b of batches) {
          const events = b.events;
          if (!events) continue;
          handoff.push({
            id: b.id,
            tenantId: b.tenantId,
            correlationId: b.correlationId,
            receivedAt: b.receivedAt,
            source: b.source,
            events,
          });
        }
      }
      wake();
    },
  });
  app.addHook('onClose', () => writer.drain());
  return writer;
}

/**
 * The events module's plugin: decorates the app with its event log (visible to the modules
 * registered after it, hence `fastify-plugin`) and serves POST /api/sdk/events in a context of
 * its own (its body parser keeps the raw text).
 */
export const eventsPlugin = fp(
  async (app: FastifyInstance) => {
    // A misordered module list fails at boot, not at the first processed batch.
    checkEffectOrder(app.deps.modules.effects);
    const writer = createAppEventWriter(app);
    app.decorate('eventLog', { writer, recorder: createEventRecorder(writer) });
    await app.register(eventRoutes);
    await app.register(eventExportRoutes);
  },
  { name: 'events' },
);

/** POST /api/sdk/events: validate, store durably through group commit, answer 202. Processing is asynchronous. */
const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { writer } = app.eventLog;

  // The body text is what the event log stores, so the parser keeps it — unless it carries the
  // API key (`_apiKey`, navigator.sendBeacon's only way to authenticate), which is never stored.
  // sendBeacon sends text/plain; its body is the same JSON.
  const rawBodies = new WeakMap<object, string>();
  const parseKeepingText = jsonBodyParser(app, (request, text, parsed) => {
    if (parsed && typeof parsed === 'object' && !Object.hasOwn(parsed, '_apiKey'))
      rawBodies.set(request, text);
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseKeepingText);
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, parseKeepingText);

  app.post(
    '/api/sdk/events',
    {
      config: { auth: API_KEY },
      validatorCompiler: eventsBodyValidator(validatorCompiler),
      schema: {
        tags: ['sdk'],
        summary: 'Submit a batch of analytics events (202 once durably stored)',
        body: eventsBody,
        response: { 202: eventsAccepted, ...errors(400, 401, 413, 429) },
      },
    },
    async (request, reply) => {
      const correlationId = newId();
      request.correlationId = correlationId;
      reply.header('X-Correlation-Id', correlationId);
      const receivedAt = app.deps.clock();
      const payload = rawBodies.get(request) ?? JSON.stringify(request.body);
      const accepted = request.body.events.length;
      const batch = toPendingBatch(request.sdk!, correlationId, receivedAt, accepted, payload);
      batch.events = request.body.events;
      await writer.write(batch);
      // The answer (eventsAccepted) written out: the hottest route skips the schema serializer.
      return reply
        .code(202)
        .type(JSON_UTF8)
        .send(`{"data":{"accepted":${accepted},"correlationId":"${correlationId}"}}` as never);
    },
  );
};
