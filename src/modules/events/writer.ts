import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { DatabaseHandle } from '../../db/client.js';
import { createBatcher } from '../../platform/batcher.js';
import { type BodyColumn, insertEventBatches } from './store.js';

/** One accepted request's events, encoded once in the request handler. */
export interface PendingBatch {
  id: string;
  tenantId: string;
  correlationId: string;
  apiKeyId: string | null;
  receivedAt: Date;
  eventCount: number;
  /** The request body as received (`sdk`), or a JSON array of settled StoredEvents (`server`). */
  payload: string;
  source: 'sdk' | 'server';
  /**
   * The same events in memory, handed to processing after the commit (handoff.ts) so that it
   * does not read the payload back: `sdk`, the request's validated events; `server`, the
   * settled StoredEvents. Absent: processing reads the stored payload.
   */
  events?: readonly unknown[];
}

export interface EventWriterOptions {
  database: DatabaseHandle;
  /** Called after each commit with the batches it stored (hands them to processing, wakes it). */
  onCommitted?: (batches: readonly PendingBatch[]) => void;
}

const compress = (payload: string): Buffer =>
  brotliCompressSync(payload, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: payload.length },
  });

/** A stored body as text, whichever column holds it. */
export function storedBody(text: string | null, compressed: Uint8Array | null): string {
  if (text !== null) return text;
  if (compressed === null) throw new Error('an event batch without a body');
  return brotliDecompressSync(compressed).toString();
}

/**
 * Group commit (through the batcher): the requests of one event-loop turn, and those arriving
 * while a statement is in flight, are stored by one multi-row INSERT (at most 500 rows). Each
 * request is answered only after the statement that holds its batch has committed, so a 202
 * means durable; under load the batch grows by itself, with no timer adding latency at rest.
 */
export function createEventWriter(opts: EventWriterOptions) {
  const body: BodyColumn = opts.database.kind === 'pglite' ? 'events_br' : 'events';
  const batcher = createBatcher<PendingBatch, void>({
    async run(batches) {
      await insertEventBatches(
        opts.database.db,
        batches,
        body,
        batches.map((b) => (body === 'events' ? b.payload : compress(b.payload))),
      );
      opts.onCommitted?.(batches);
      return batches.map(() => undefined);
    },
  });
  return {
    /** Resolves once the batch is committed. */
    write: (batch: PendingBatch): Promise<void> => batcher.load(batch),
    /** Resolves when nothing is queued or in flight (graceful shutdown). */
    drain: () => batcher.drain(),
  };
}
export type EventWriter = ReturnType<typeof createEventWriter>;
