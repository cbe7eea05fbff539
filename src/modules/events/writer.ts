import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { DatabaseHandle } from '../../db/client.js';
import { preparedQuery } from '../../db/prepared.js';
import { createBatcher } from '../../platform/batcher.js';

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

const COLUMNS = 8;
const statements = new Map<string, string>();

/** Row counts the INSERT is prepared for: a batch is padded up to the next one. */
const roundUp = (rows: number): number => 2 ** Math.ceil(Math.log2(rows));

/**
 * Where a body goes: text on PostgreSQL (which compresses it in its own process), brotli bytes
 * on PGlite, whose own compression runs in WebAssembly on the server's thread (migration 0065).
 */
type BodyColumn = 'events' | 'events_br';

/**
 * One prepared multi-row INSERT per power-of-two row count (a few statements, each parsed and
 * planned once per connection): a batch binds its rows and pads the rest with nulls, which the
 * `where` drops. Bodies travel as plain parameters, with none of the escaping an array literal
 * of them would need.
 */
function insertFor(rows: number, body: BodyColumn): string {
  const key = `${body}:${rows}`;
  let text = statements.get(key);
  if (!text) {
    const bodyType = body === 'events' ? 'text' : 'bytea';
    const tuples = Array.from({ length: rows }, (_, r) => {
      const p = (c: number) => `$${r * COLUMNS + c}`;
      return `(${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}::uuid, ${p(4)}::uuid, ${p(5)}::timestamptz, ${p(6)}::int, ${p(7)}::${bodyType}, ${p(8)}::text)`;
    });
    const columns = `id, tenant_id, correlation_id, api_key_id, received_at, event_count, ${body}, source`;
    text = `insert into event_batches (${columns})
      select * from (values ${tuples.join(', ')}) as b (${columns})
      where b.id is not null`;
    statements.set(key, text);
  }
  return text;
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
      const rows = roundUp(batches.length);
      const params = new Array<unknown>(rows * COLUMNS).fill(null);
      batches.forEach((b, r) => {
        const at = r * COLUMNS;
        params[at] = b.id;
        params[at + 1] = b.tenantId;
        params[at + 2] = b.correlationId;
        params[at + 3] = b.apiKeyId;
        params[at + 4] = b.receivedAt.toISOString();
        params[at + 5] = b.eventCount;
        params[at + 6] = body === 'events' ? b.payload : compress(b.payload);
        params[at + 7] = b.source;
      });
      await preparedQuery(opts.database.db, insertFor(rows, body), params);
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
