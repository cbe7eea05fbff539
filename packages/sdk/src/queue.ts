import { retryable, retryDelay } from './backoff.js';
import type { Reply } from './transport.js';
import type { EventsResponse, SdkEvent } from './wire.js';

/** Events a request carries at most (the spec's SDK default). */
export const BATCH_SIZE = 50;
/** Queued events are sent at least this often. */
export const FLUSH_INTERVAL_MS = 5_000;
/** Beyond this many unsent events (a long outage), the oldest are dropped. */
export const MAX_QUEUED = 1_000;

export interface QueueDeps {
  send(batch: SdkEvent[]): Promise<Reply<EventsResponse>>;
  beacon(batch: SdkEvent[]): boolean;
  /** Keeps unsent events for the next page (or drops the copy with undefined). */
  persist(events: SdkEvent[] | undefined): void;
  onProblem(message: string): void;
  /** Timers and randomness, injectable for tests. */
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  random?: () => number;
}

/**
 * The outgoing event queue. Events (each with a client `id`, so a retried batch is counted
 * once) go out in batches of at most 50: when 50 are waiting, every 5 s, on `flush()`, and by
 * `sendBeacon` when the page is hidden. Failures (network, 408, 429, 5xx) are retried with
 * exponential backoff and jitter, never sooner than Retry-After; other 4xx answers drop the
 * batch (it can never succeed), and 401 stops sending (the key is wrong or revoked).
 */
export class EventQueue {
  private items: SdkEvent[] = [];
  private timer: unknown = null;
  private retryTimer: unknown = null;
  private failures = 0;
  private inflight: Promise<void> | null = null;
  private stopped = false;
  private readonly later: (fn: () => void, ms: number) => unknown;
  private readonly cancel: (handle: unknown) => void;

  constructor(private readonly deps: QueueDeps) {
    this.later = deps.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
    this.cancel = deps.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  get size(): number {
    return this.items.length;
  }

  get pending(): readonly SdkEvent[] {
    return this.items;
  }

  push(...events: SdkEvent[]): void {
    if (this.stopped) return;
    this.items.push(...events);
    if (this.items.length > MAX_QUEUED) this.items.splice(0, this.items.length - MAX_QUEUED);
    if (this.items.length >= BATCH_SIZE && !this.retryTimer) void this.flush();
    else this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.retryTimer || this.items.length === 0) return;
    this.timer = this.later(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_INTERVAL_MS);
  }

  /**
   * Sends everything queued now, batch after batch; resolves when the queue is empty or a
   * failure has scheduled a retry (a pending backoff is honoured, not skipped).
   */
  flush(): Promise<void> {
    if (!this.inflight) {
      this.inflight = this.drain().finally(() => {
        this.inflight = null;
      });
    }
    return this.inflight;
  }

  private async drain(): Promise<void> {
    if (this.timer) {
      this.cancel(this.timer);
      this.timer = null;
    }
    while (this.items.length > 0 && !this.retryTimer && !this.stopped) {
      const batch = this.items.slice(0, BATCH_SIZE);
      const reply = await this.deps.send(batch);
      if (reply.status >= 200 && reply.status < 300) {
        this.failures = 0;
        this.remove(batch);
        continue;
      }
      if (retryable(reply.status)) {
        this.failures++;
        const delay = retryDelay(this.failures, reply.retryAfter, this.deps.random);
        this.deps.onProblem(
          `events not delivered (${reply.status || 'network error'}); retrying in ${Math.round(delay / 1000)} s`,
        );
        this.retryTimer = this.later(() => {
          this.retryTimer = null;
          void this.flush();
        }, delay);
        return;
      }
      this.remove(batch);
      if (reply.status === 401 || reply.status === 403) {
        this.stopped = true;
        this.items = [];
        this.deps.onProblem('the API key was refused; events are no longer sent');
      } else {
        this.deps.onProblem(`a batch of ${batch.length} events was refused (${reply.status}) and dropped`);
      }
    }
    this.schedule();
  }

  private remove(batch: SdkEvent[]): void {
    const sent = new Set(batch);
    this.items = this.items.filter((e) => !sent.has(e));
  }

  /**
   * The page is going away (or hidden): hand everything to sendBeacon. When the service has
   * been failing, a copy is also kept for the next page (ids make the resend harmless).
   */
  beaconAll(): void {
    if (this.stopped || this.items.length === 0) return;
    let all = true;
    for (let i = 0; i < this.items.length; i += BATCH_SIZE) {
      all = this.deps.beacon(this.items.slice(i, i + BATCH_SIZE)) && all;
    }
    if (!all || this.failures > 0) this.deps.persist(this.items.slice());
    else this.deps.persist(undefined);
    if (all) this.items = [];
  }

  /** Drops everything (reset) and cancels timers. */
  clear(): void {
    this.items = [];
    for (const t of [this.timer, this.retryTimer]) if (t) this.cancel(t);
    this.timer = this.retryTimer = null;
    this.failures = 0;
  }
}
