import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import {
  cursorKey,
  decodeCursor,
  type ExportRow,
  encodeCursor,
  exportQuery,
  exportRange,
  isCursorTime,
  sendExport,
} from '../../platform/http/export-stream.js';
import { errors } from '../../platform/http/schemas.js';
import { isUuid } from '../../platform/ids.js';
import { decodeBatchEvents } from './decode.js';
import { DERIVED_ID_POSITIONS, MAX_EVENTS_PER_REQUEST } from './schema.js';
import { type BatchPosition, findBatchesForExport } from './store.js';
import { EVENT_TYPES, type EventType } from './types.js';
import { storedBody } from './writer.js';

/**
 * GET /api/events/export (docs/export.md): the tenant's events as stored in the log, in the
 * log's order — the time the service received their batch, the batch id, the event's position
 * in it — which is the only order a keyset can follow (events are stored as the batches clients
 * sent, one row each) and the one an incremental load needs: an event received late (an offline
 * client's queue) still comes after everything exported before it.
 */

const CURSOR_KIND = 'events';

/** Batches read per page: at most 20 × 500 events, typically ~1,000 (the SDK sends 50 a batch). */
export const EXPORT_PAGE_BATCHES = 20;
if (EXPORT_PAGE_BATCHES * MAX_EVENTS_PER_REQUEST > 10_000) throw new Error('export pages too large');

export const EVENT_EXPORT_COLUMNS = [
  'id',
  'type',
  'name',
  'timestamp',
  'receivedAt',
  'userId',
  'anonymousId',
  'sessionId',
  'url',
  'properties',
  'metadata',
] as const;

const eventTypes = z
  .string()
  .max(4096)
  .transform((s) =>
    s
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== ''),
  )
  .refine((list) => list.length > 0 && list.every((t) => (EVENT_TYPES as readonly string[]).includes(t)), {
    message: `must be a comma-separated list of event types (${EVENT_TYPES.join(', ')})`,
  })
  .transform((list) => new Set(list as EventType[]));

export const eventExportQuery = exportQuery.extend({
  types: eventTypes.optional().describe('only these event types (comma-separated); default: all'),
});

/** The position of an events cursor: the batch (received time, id) and the event's position in it. */
interface EventPosition {
  at: string;
  id: string;
  position: number;
}

function positionOf(key: string, cursor: string): EventPosition {
  const [at, id, position] = decodeCursor(key, CURSOR_KIND, cursor, 3);
  const n = Number(position);
  // Signed by this service, so well formed; checked all the same before it reaches SQL.
  if (!isCursorTime(at) || !isUuid(id) || !Number.isInteger(n) || n < 0 || n >= DERIVED_ID_POSITIONS)
    throw validationError([{ path: 'query.cursor', message: 'is not a cursor of this export' }]);
  return { at: at!, id: id!, position: n };
}

/** The export's rows, a page of batches at a time; `start` resumes just after an event. */
async function* eventPages(
  exec: Executor,
  tenantId: string,
  range: { from: Date | null; until: Date },
  types: ReadonlySet<EventType> | undefined,
  key: string,
  start: EventPosition | null,
): AsyncGenerator<ExportRow[]> {
  // The cursor's batch is read again (its later events are still to send); the rest of the
  // pages start strictly after the last batch read.
  let after: BatchPosition | null = start ? { at: start.at, id: start.id, inclusive: true } : null;
  for (;;) {
    const batches = await findBatchesForExport(exec, tenantId, range, after, EXPORT_PAGE_BATCHES);
    const rows: ExportRow[] = [];
    for (const batch of batches) {
      const receivedAt = new Date(batch.receivedAt);
      const events = decodeBatchEvents(
        { id: batch.id, receivedAt, source: batch.source },
        storedBody(batch.events, batch.eventsBr),
      );
      const first = start && batch.id === start.id ? start.position + 1 : 0;
      for (let i = first; i < events.length; i++) {
        const e = events[i]!;
        if (types && !types.has(e.type)) continue;
        rows.push({
          values: {
            id: e.id,
            type: e.type,
            name: e.name,
            timestamp: e.timestamp,
            receivedAt: receivedAt.toISOString(),
            userId: e.userId,
            anonymousId: e.anonymousId,
            sessionId: e.sessionId,
            url: e.url,
            properties: e.properties,
            metadata: e.metadata,
          },
          cursor: encodeCursor(key, CURSOR_KIND, [batch.receivedAt, batch.id, i]),
        });
      }
    }
    yield rows;
    const last = batches.at(-1);
    if (!last || batches.length < EXPORT_PAGE_BATCHES) return;
    after = { at: last.receivedAt, id: last.id, inclusive: false };
  }
}

export const eventExportRoutes: FastifyPluginAsyncZod = async (app) => {
  const key = cursorKey(app.deps.config.jwtSecret);
  app.get(
    '/api/events/export',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags: ['analytics'],
        summary: 'Export events as NDJSON or CSV (streamed, resumable with a cursor; gzip when accepted)',
        querystring: eventExportQuery,
        response: {
          200: z
            .string()
            .describe('NDJSON (one event a line) or CSV with a header row; every row has its cursor'),
          ...errors(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const ctx = ctxOf(request);
      const q = request.query;
      const range = exportRange(q, ctx.now);
      const start = q.cursor === undefined ? null : positionOf(key, q.cursor);
      return sendExport(request, reply, {
        format: q.format,
        name: 'events-export',
        columns: EVENT_EXPORT_COLUMNS,
        pages: eventPages(ctx.db, ctx.tenantId, range, q.types, key, start),
      });
    },
  );
};
