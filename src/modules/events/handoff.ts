/**
 * Committed batches handed from the event writer to processing in memory, so that processing
 * neither reads the stored body back nor parses it again. The event log stays the record: a
 * batch is processed only if its row is still pending when processing claims it, and whatever
 * the queue does not hold (batches committed before a restart, accepted by another instance,
 * or dropped here because the queue was full) is read back from the log by processing's scan.
 */
export interface HandedBatch {
  id: string;
  tenantId: string;
  correlationId: string;
  receivedAt: Date;
  source: 'sdk' | 'server';
  /** `sdk`: the request's validated events (decoded as the stored body would be); `server`: settled StoredEvents. */
  events: readonly unknown[];
}

/** Events per processing transaction on PostgreSQL (the processing job's chunk target). */
export const PROCESSING_CHUNK_EVENTS = 2_500;

/**
 * Events held at most (about 3 MB of SDK batches): two processing chunks, what arrives while one
 * is processed at any rate processing keeps up with. Beyond it batches wait in the log only. A
 * longer queue only holds events processing has fallen behind on, and those outlive the young
 * generation's collections: copied and promoted, they cost the collector more than reading them
 * back costs processing (measured: bench/README.md, "Hand-over queue and young generation").
 */
export const HANDOFF_MAX_EVENTS = 2 * PROCESSING_CHUNK_EVENTS;

export class EventHandoff {
  private queue: HandedBatch[] = [];
  private head = 0;
  private events = 0;
  /** A batch was not queued (the queue was full): the log holds batches the queue does not. */
  overflowed = false;

  constructor(private readonly maxEvents = HANDOFF_MAX_EVENTS) {}

  /** Queues committed batches; any that would exceed the bound is left to the log. */
  push(batch: HandedBatch): void {
    const n = batch.events.length;
    if (this.events + n > this.maxEvents) {
      this.overflowed = true;
      return;
    }
    this.queue.push(batch);
    this.events += n;
  }

  /** The oldest queued batches, up to `maxEvents` events (at least one batch) and `maxBatches`. */
  take(maxEvents: number, maxBatches: number): HandedBatch[] {
    const taken: HandedBatch[] = [];
    let events = 0;
    while (this.head < this.queue.length && taken.length < maxBatches) {
      const next = this.queue[this.head]!;
      if (taken.length > 0 && events + next.events.length > maxEvents) break;
      taken.push(next);
      events += next.events.length;
      this.head++;
    }
    this.events -= events;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return taken;
  }

  /** Ids of the batches still queued (the scan leaves them to the in-memory path). */
  queuedIds(): string[] {
    const ids: string[] = [];
    for (let i = this.head; i < this.queue.length; i++) ids.push(this.queue[i]!.id);
    return ids;
  }

  get size(): number {
    return this.queue.length - this.head;
  }

  /** Forgets every queued batch (they stay pending in the log, for the scan). */
  clear(): void {
    if (this.size > 0) this.overflowed = true;
    this.queue = [];
    this.head = 0;
    this.events = 0;
  }
}
