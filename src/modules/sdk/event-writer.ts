import type { DatabaseHandle } from '../../db/client.js';
import { createBatcher } from '../../platform/batcher.js';

/** One accepted request's events, encoded once in the request handler. */
export interface PendingBatch {
  id: string;
  tenantId: string;
  correlationId: string;
  apiKeyId: string | null;
  receivedAt: Date;
  eventCount: number;
  /** JSON array of StoredEvent. */
  payload: string;
}

export interface EventWriterOptions {
  database: DatabaseHandle;
  /** Statements in flight at once; more than one uses several pooled connections on PostgreSQL. */
  maxInFlight: number;
  /** Upper bound of rows (requests) stored by one statement. */
  maxRowsPerStatement?: number;
  /** Called after each commit (wakes the event processor). */
  onCommitted?: () => void;
  /** Start statements from a `setImmediate` (embedded database: one event-loop turn, one INSERT). */
  defer?: boolean;
}

const INSERT = `insert into event_batches (id, tenant_id, correlation_id, api_key_id, received_at, event_count, events)
  select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[], $6::int[], $7::text[])`;

/**
 * Group commit: requests that arrive while a statement is in flight wait for the next one, and
 * that statement stores all of them with one multi-row INSERT … SELECT FROM unnest(…). Each
 * request is answered only after the statement that holds its batch has committed, so a 202
 * means durable; under load the batch grows by itself, with no timer adding latency at rest.
 */
export function createEventWriter(opts: EventWriterOptions) {
  const batcher = createBatcher<PendingBatch, void>({
    maxInFlight: opts.maxInFlight,
    maxBatch: opts.maxRowsPerStatement ?? 1000,
    ...(opts.defer === undefined ? {} : { defer: opts.defer }),
    async run(batches) {
      await opts.database.query(INSERT, [
        batches.map((b) => b.id),
        batches.map((b) => b.tenantId),
        batches.map((b) => b.correlationId),
        batches.map((b) => b.apiKeyId),
        batches.map((b) => b.receivedAt.toISOString()),
        batches.map((b) => b.eventCount),
        batches.map((b) => b.payload),
      ]);
      opts.onCommitted?.();
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
