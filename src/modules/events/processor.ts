import type { Logger } from 'pino';
import type { Executor } from '../../db/client.js';
import type { AppDeps, Job } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { decodeBatchEvents, decodeEvents } from './decode.js';
import {
  checkEffectOrder,
  type EffectContext,
  type EventEffect,
  type MemoKey,
  type ProcessedBatch,
} from './effect.js';
import { type HandedBatch, PROCESSING_CHUNK_EVENTS } from './handoff.js';
import { ASSUMED_EVENTS_PER_BATCH, eventsState } from './state.js';
import {
  type ClaimedBatch,
  claimBatch,
  claimHandedBatches,
  claimNewBatches,
  findRetryingBatches,
  insertDeadLetters,
  insertProcessedEventIds,
  markBatchesProcessed,
  recordBatchFailure,
} from './store.js';
import type { StoredEvent } from './types.js';
import { storedBody } from './writer.js';

/** Failed batches retried (alone, one attempt each) per run. */
const RETRIES_PER_RUN = 10;
const GIVE_UP_AFTER = 5;

export interface ProcessingOptions {
  /** Most batches claimed by one transaction. */
  maxBatches?: number;
  /**
   * Events aimed at per transaction: the batch count follows the size of the batches last
   * claimed, so many one-event batches (session starts) share a transaction as 50-event ones do.
   */
  targetEvents?: number;
  /**
   * Whether ingestion is busy in this process. While it is, processing pauses after each chunk
   * as long as the chunk took: it then takes at most half of the process (and of the embedded
   * database's one thread), and catches up at full speed once the burst is over.
   */
  ingestionBusy?: () => boolean;
  /**
   * The events per batch last seen, kept by the caller between runs so that a run's first chunk
   * is sized as well as the later ones (ASSUMED_EVENTS_PER_BATCH at first).
   */
  sizing?: { eventsPerBatch: number; targetEvents?: number };
  /**
   * A wall-time budget per transaction (ms). When set, the events per transaction adapt (never
   * above `targetEvents`, never below MIN_CHUNK_EVENTS): a chunk that took longer shrinks the
   * next, one that took less than half grows it. On the embedded database every request-path
   * statement waits for the open transaction, so this bounds that wait whatever the machine's
   * speed or load. The adapted size is kept in `sizing` from run to run.
   */
  maxChunkMs?: number;
  /**
   * Whether to scan the log for pending batches after the in-memory ones (default: always). The
   * job scans at most once a second, and at once after the hand-over queue overflowed.
   */
  scan?: () => boolean;
}

/** With a time budget: the first chunk's events, and the fewest a chunk is cut to. */
const INITIAL_BUDGETED_EVENTS = 400;
const MIN_CHUNK_EVENTS = 50;

/**
 * Retries up to ten batches whose processing failed (each alone, one attempt per run), then
 * processes the batches this process committed and handed over in memory (handoff.ts), then
 * scans the log for other pending batches in chunks until one comes back short. Several
 * instances may run it at once: each claims different batches (SKIP LOCKED). A crash before
 * commit leaves the batches pending, so processing resumes where it stopped (the scan reads them
 * back); client event ids make a retried request count once.
 */
export async function processPendingEvents(
  deps: AppDeps,
  effects: readonly EventEffect[],
  {
    maxBatches = 50,
    targetEvents = Number.POSITIVE_INFINITY,
    ingestionBusy = () => false,
    sizing = { eventsPerBatch: ASSUMED_EVENTS_PER_BATCH },
    scan = () => true,
    maxChunkMs,
  }: ProcessingOptions = {},
): Promise<number> {
  let processed = 0;
  const target = () =>
    maxChunkMs ? Math.min(targetEvents, sizing.targetEvents ?? INITIAL_BUDGETED_EVENTS) : targetEvents;
  const adapt = (startedAt: number) => {
    if (!maxChunkMs) return;
    const took = performance.now() - startedAt;
    const current = target();
    // At most halved per chunk: one stall of the machine does not shrink the next chunks to nothing.
    if (took > maxChunkMs)
      sizing.targetEvents = Math.max(
        MIN_CHUNK_EVENTS,
        Math.floor(current * Math.max(0.5, maxChunkMs / took)),
      );
    else if (took < maxChunkMs * 0.75)
      sizing.targetEvents = Math.min(targetEvents, Math.ceil(current * 1.25));
  };
  /** While ingestion is busy in this process, processing pauses as long as its last chunk took. */
  const yieldToIngestion = async (startedAt: number) => {
    if (ingestionBusy()) await new Promise((r) => setTimeout(r, performance.now() - startedAt));
  };
  const retrying = await findRetryingBatches(deps.database.db, RETRIES_PER_RUN);
  for (const { id } of retrying) processed += (await processChunk(deps, effects, 1, id)).batches;
  const { handoff } = eventsState(deps);
  if (handoff) {
    for (;;) {
      const handed = handoff.take(target(), maxBatches);
      if (handed.length === 0) break;
      const startedAt = performance.now();
      processed += (await processHanded(deps, effects, handed)).batches;
      adapt(startedAt);
      await yieldToIngestion(startedAt);
    }
    if (!scan()) return processed;
    handoff.overflowed = false;
  }
  for (;;) {
    const startedAt = performance.now();
    const chunk = Math.max(1, Math.min(maxBatches, Math.floor(target() / sizing.eventsPerBatch)));
    const { batches, events } = await processChunk(
      deps,
      effects,
      chunk,
      undefined,
      handoff?.queuedIds() ?? [],
    );
    if (batches > 0) adapt(startedAt);
    processed += batches;
    if (batches > 0) sizing.eventsPerBatch = Math.max(1, events / batches);
    // Fewer than asked: caught up. The next commit's wake brings the next chunk, so under load a
    // chunk gathers what arrived in the meantime instead of each transaction taking a few.
    if (batches < chunk) return processed;
    await yieldToIngestion(startedAt);
  }
}

interface ChunkResult {
  batches: number;
  events: number;
}

/**
 * Claims and processes up to `chunk` pending batches read back from the log (or only the batch
 * `onlyId`; never one of `skipIds`, which the in-memory path holds) in one transaction.
 */
async function processChunk(
  deps: AppDeps,
  effects: readonly EventEffect[],
  chunk: number,
  onlyId?: string,
  skipIds: string[] = [],
): Promise<ChunkResult> {
  let claimed: ClaimedBatch[] = [];
  try {
    return await deps.database.db.transaction(async (tx) => {
      claimed = onlyId ? await claimBatch(tx, onlyId) : await claimNewBatches(tx, chunk, skipIds);
      if (claimed.length > 0) {
        const batches = claimed.map((r) =>
          processedBatch(
            deps,
            r.id,
            r.tenant_id,
            r.correlation_id,
            decodeBatchEvents(
              { id: r.id, receivedAt: new Date(r.received_at), source: r.source },
              storedBody(r.events, r.events_br),
            ),
          ),
        );
        await applyBatches(tx, effects, batches, eventsState(deps).memos);
        await markBatchesProcessed(
          tx,
          claimed.map((r) => r.id),
        );
      }
      return { batches: claimed.length, events: claimed.reduce((n, r) => n + Number(r.event_count), 0) };
    });
  } catch (err) {
    return retryAlone(deps, effects, claimed, err);
  }
}

/** After a chunk failed: each of its batches on its own, read back from the log (one attempt each). */
async function retryAlone(
  deps: AppDeps,
  effects: readonly EventEffect[],
  claimed: readonly { id: string; event_count: number }[],
  err: unknown,
): Promise<ChunkResult> {
  if (claimed.length === 0) throw err;
  // Find the poison: retry each of the chunk's batches on its own (one attempt each).
  if (claimed.length > 1) {
    const done = { batches: 0, events: 0 };
    for (const row of claimed) {
      const one = await processChunk(deps, effects, 1, row.id);
      done.batches += one.batches;
      done.events += one.events;
    }
    return done;
  }
  await recordFailure(deps, claimed[0]!.id, err);
  return { batches: 1, events: Number(claimed[0]!.event_count) };
}

/**
 * Processes batches handed over in memory in one transaction: those still pending are claimed
 * and marked processed by one statement, and their events decoded from the request's objects
 * (no stored body is read or parsed). If the chunk fails, each batch is retried alone from the log.
 */
async function processHanded(
  deps: AppDeps,
  effects: readonly EventEffect[],
  handed: readonly HandedBatch[],
): Promise<ChunkResult> {
  let claimed: { id: string; event_count: number }[] = [];
  try {
    return await deps.database.db.transaction(async (tx) => {
      const rows = await claimHandedBatches(
        tx,
        handed.map((b) => b.id),
        earliestReceived(handed),
      );
      if (rows.length === 0) return { batches: 0, events: 0 };
      const pending = rows.length === handed.length ? handed : onlyClaimed(handed, rows);
      claimed = pending.map((b) => ({ id: b.id, event_count: b.events.length }));
      const batches = pending.map((b) =>
        processedBatch(deps, b.id, b.tenantId, b.correlationId, decodeEvents(b, b.events)),
      );
      await applyBatches(tx, effects, batches, eventsState(deps).memos);
      return { batches: batches.length, events: batches.reduce((n, b) => n + b.events.length, 0) };
    });
  } catch (err) {
    return retryAlone(deps, effects, claimed, err);
  }
}

function earliestReceived(handed: readonly HandedBatch[]): Date {
  let min = handed[0]!.receivedAt;
  for (const b of handed) if (b.receivedAt < min) min = b.receivedAt;
  return min;
}

function onlyClaimed(handed: readonly HandedBatch[], rows: readonly { id: string }[]): HandedBatch[] {
  const ids = new Set(rows.map((r) => r.id));
  return handed.filter((b) => ids.has(b.id));
}

/** A batch as effects see it; its child logger is made only if something logs. */
function processedBatch(
  deps: AppDeps,
  id: string,
  tenantId: string,
  correlationId: string,
  events: StoredEvent[],
): ProcessedBatch {
  let log: Logger | undefined;
  return {
    id,
    tenantId,
    correlationId,
    events,
    get log() {
      log ??= deps.log.child({ correlationId });
      return log;
    },
  };
}

async function recordFailure(deps: AppDeps, batchId: string, err: unknown): Promise<void> {
  const message = (err as Error)?.message ?? String(err);
  const row = await recordBatchFailure(deps.database.db, batchId, message.slice(0, 2000), GIVE_UP_AFTER);
  const log = deps.log.child({ correlationId: row?.correlation_id, batchId });
  if (row && row.attempts >= GIVE_UP_AFTER) log.error({ err }, 'event batch failed too often: set aside');
  else log.warn({ err, attempts: row?.attempts }, 'event batch processing failed; will retry');
}

/** Runs every effect over the chunk's batches (their rows are, or will be, marked processed in `tx`). */
async function applyBatches(
  tx: Executor,
  effects: readonly EventEffect[],
  batches: ProcessedBatch[],
  memos: Map<MemoKey<unknown>, unknown>,
): Promise<void> {
  await dropDuplicates(tx, batches);
  const deadLetters: { batch: ProcessedBatch; event: StoredEvent; reason: string }[] = [];
  const ctx: EffectContext = {
    deadLetter(batch, event, reason) {
      batch.log.info({ eventId: event.id, type: event.type, reason }, 'event set aside');
      deadLetters.push({ batch, event, reason });
    },
    memo<T>(key: MemoKey<T>): T {
      if (!memos.has(key)) memos.set(key, key.create());
      return memos.get(key) as T;
    },
  };
  for (const effect of effects) await effect.apply(tx, batches, ctx);
  if (deadLetters.length > 0) {
    await insertDeadLetters(
      tx,
      deadLetters.map((d) => ({
        id: newId(),
        tenantId: d.batch.tenantId,
        batchId: d.batch.id,
        correlationId: d.batch.correlationId,
        event: JSON.stringify(d.event),
        reason: d.reason,
      })),
    );
  }
}

/** Events whose client id was processed before (a retried request) are removed from their batch. */
async function dropDuplicates(tx: Executor, batches: ProcessedBatch[]): Promise<void> {
  const tenants: string[] = [];
  const ids: string[] = [];
  for (const b of batches) {
    for (const e of b.events) {
      if (!e.clientId) continue;
      tenants.push(b.tenantId);
      ids.push(e.id);
    }
  }
  if (ids.length === 0) return;
  const fresh = await insertProcessedEventIds(tx, tenants, ids);
  const accepted = new Set(fresh.map((r) => `${r.tenant_id}:${r.event_id}`));
  for (const b of batches) {
    b.events = b.events.filter((e) => {
      if (!e.clientId) return true;
      const key = `${b.tenantId}:${e.id}`;
      // The same id twice in one chunk: only the first occurrence counts.
      if (!accepted.delete(key)) return false;
      return true;
    });
  }
}

export const EVENT_PROCESSOR = 'event-processor';

/** The embedded database's wall-time budget per processing transaction (bench/README.md, "Embedded tail"). */
const CHUNK_BUDGET_MS = 10;

/** Ingestion counts as busy this long after its last commit. */
const INGESTION_QUIET_MS = 250;

/** The log is scanned for batches the hand-over queue does not hold at most this often (and after an overflow). */
const SCAN_EVERY_MS = 1_000;

/**
 * The processing job: woken after every commit of the event writer; its interval picks up
 * other instances' batches. Effects are every module's, in manifest order.
 */
export const eventProcessorJob: Job = {
  name: EVENT_PROCESSOR,
  intervalMs: 1_000,
  async run(deps) {
    await processPendingEvents(deps, deps.modules.effects, jobProcessingOptions(deps));
  },
};

/**
 * The processing job's options for this app, its sizing carried from run to run in the events
 * state. Chunks of up to PROCESSING_CHUNK_EVENTS (2,500). Embedded, where PGlite runs one
 * statement at a time on this thread and every request-path statement waits behind an open
 * processing transaction, each chunk is sized to take at most CHUNK_BUDGET_MS. While ingestion is
 * busy in this process, processing takes at most half of it.
 */
function jobProcessingOptions(deps: AppDeps): ProcessingOptions {
  // A worker-only process builds no HTTP app: a misordered module list fails here instead.
  checkEffectOrder(deps.modules.effects);
  const state = eventsState(deps);
  const { job } = state;
  return {
    maxBatches: 500,
    targetEvents: PROCESSING_CHUNK_EVENTS,
    ...(deps.database.kind === 'pglite' ? { maxChunkMs: CHUNK_BUDGET_MS } : {}),
    ingestionBusy: () => Date.now() - state.hotPathActiveAt < INGESTION_QUIET_MS,
    sizing: job,
    scan: () => {
      const now = Date.now();
      if (!state.handoff?.overflowed && now - job.scannedAt < SCAN_EVERY_MS) return false;
      job.scannedAt = now;
      return true;
    },
  };
}
