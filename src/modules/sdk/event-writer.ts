import type { DatabaseHandle } from '../../db/client.js';

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

interface Waiter {
  batch: PendingBatch;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface EventWriterOptions {
  database: DatabaseHandle;
  /** Statements in flight at once; more than one uses several pooled connections on PostgreSQL. */
  maxInFlight: number;
  /** Upper bound of rows (requests) stored by one statement. */
  maxRowsPerStatement?: number;
  /** Called after each commit (wakes the event processor). */
  onCommitted?: () => void;
  /**
   * Start statements from a `setImmediate` rather than at once: with the embedded database, whose
   * queries run on this thread, every request read in one event-loop turn joins one INSERT.
   */
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
  const maxRows = opts.maxRowsPerStatement ?? 1000;
  let queue: Waiter[] = [];
  let inFlight = 0;
  let idle: (() => void) | null = null;
  let scheduled = false;

  function schedule(): void {
    if (!opts.defer) {
      pump();
      return;
    }
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (inFlight < opts.maxInFlight && queue.length > 0) {
      const take = queue.length <= maxRows ? queue : queue.slice(0, maxRows);
      queue = take === queue ? [] : queue.slice(maxRows);
      inFlight++;
      store(take)
        .then(
          () => {
            for (const w of take) w.resolve();
            opts.onCommitted?.();
          },
          (err) => {
            for (const w of take) w.reject(err);
          },
        )
        .finally(() => {
          inFlight--;
          schedule();
          if (inFlight === 0 && queue.length === 0) idle?.();
        });
    }
  }

  async function store(waiters: Waiter[]): Promise<void> {
    const n = waiters.length;
    const cols = { id: new Array<string>(n), tenant: new Array<string>(n), corr: new Array<string>(n) };
    const keys = new Array<string | null>(n);
    const received = new Array<string>(n);
    const counts = new Array<number>(n);
    const payloads = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const b = waiters[i]!.batch;
      cols.id[i] = b.id;
      cols.tenant[i] = b.tenantId;
      cols.corr[i] = b.correlationId;
      keys[i] = b.apiKeyId;
      received[i] = b.receivedAt.toISOString();
      counts[i] = b.eventCount;
      payloads[i] = b.payload;
    }
    await opts.database.query(INSERT, [cols.id, cols.tenant, cols.corr, keys, received, counts, payloads]);
  }

  return {
    /** Resolves once the batch is committed. */
    write(batch: PendingBatch): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ batch, resolve, reject });
        schedule();
      });
    },
    /** Resolves when nothing is queued or in flight (graceful shutdown). */
    async drain(): Promise<void> {
      if (inFlight === 0 && queue.length === 0) return;
      await new Promise<void>((resolve) => {
        idle = resolve;
      });
    },
  };
}
export type EventWriter = ReturnType<typeof createEventWriter>;
