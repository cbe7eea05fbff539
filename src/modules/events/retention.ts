import { randomUUID } from 'node:crypto';
import type { AppDeps, Job } from '../../deps.js';
import { claimJobLease, releaseJobLease } from '../../platform/job-lease.js';
import { listTenantRetention } from '../pricing/index.js';
import { monthsToPrepare, planRetention } from './engine/retention.js';
import {
  addLogMonth,
  deleteBatchesBefore,
  deleteDeadLettersBefore,
  dropLogPartition,
  findDefaultPartitionMonths,
  isEventLogPartitioned,
  listLogPartitions,
} from './store.js';

/**
 * The `event-retention` job (docs/retention.md): removes each tenant's events older than its
 * plan's retention, as engine/retention.ts decides: on PostgreSQL, expired months of the log are
 * dropped whole and shorter retentions trimmed by DELETEs; embedded, DELETEs only. It also keeps
 * the coming months' partitions ready. Every instance ticks it; a lease (platform/job-lease.ts)
 * lets one run do the work, once an hour.
 *
 * Each DELETE removes at most BATCH rows in its own short transaction (no long lock, no huge
 * transaction; the processor and exports go on between them). Removing is idempotent: a run cut
 * off half-way leaves rows that the next run removes.
 */

export const EVENT_RETENTION = 'event-retention';
/** How often the work is done across all instances. */
export const RETENTION_EVERY_MS = 3_600_000;
/** Held by the running instance; a run that dies is taken over after it. */
const LEASE_MS = 30 * 60_000;
/** Rows per DELETE statement. */
export const RETENTION_BATCH = 500;
/** How long dropping a partition may wait for the log's lock (inserts queue behind it meanwhile). */
const DROP_LOCK_TIMEOUT_MS = 2_000;

type RetentionDeps = Pick<AppDeps, 'database' | 'clock' | 'log'>;

export interface RetentionResult {
  partitionsAdded: number;
  partitionsDropped: string[];
  batchesDeleted: number;
  deadLettersDeleted: number;
}

/** Runs a batched DELETE until a batch comes back short, each starting where the last ended; the total. */
async function inBatches(
  deleteFrom: (from: Date | null) => Promise<{ deleted: number; last: Date | null }>,
): Promise<number> {
  let total = 0;
  let from: Date | null = null;
  for (;;) {
    const { deleted, last } = await deleteFrom(from);
    total += deleted;
    if (deleted < RETENTION_BATCH) return total;
    from = last;
  }
}

/** One pass of retention at `now`, whatever the lease (the job below decides when to call it). */
export async function applyRetention(deps: RetentionDeps, now: Date): Promise<RetentionResult> {
  const db = deps.database.db;
  const partitioned = await isEventLogPartitioned(db);
  let partitionsAdded = 0;
  if (partitioned) {
    for (const month of monthsToPrepare(now, await findDefaultPartitionMonths(db))) {
      if (await addLogMonth(db, month)) partitionsAdded++;
    }
  }
  const plan = planRetention({
    now,
    tenants: await listTenantRetention(db),
    partitioned,
    partitions: partitioned ? await listLogPartitions(db) : [],
  });
  const partitionsDropped: string[] = [];
  for (const name of plan.drop) {
    await dropLogPartition(db, name, DROP_LOCK_TIMEOUT_MS);
    partitionsDropped.push(name);
  }
  let batchesDeleted = 0;
  for (const { tenantId, before } of plan.deleteBatches) {
    batchesDeleted += await inBatches((from) =>
      deleteBatchesBefore(db, tenantId, { from, before }, RETENTION_BATCH),
    );
  }
  let deadLettersDeleted = 0;
  for (const { tenantId, before } of plan.deleteDeadLetters) {
    deadLettersDeleted += await inBatches((from) =>
      deleteDeadLettersBefore(db, tenantId, { from, before }, RETENTION_BATCH),
    );
  }
  return { partitionsAdded, partitionsDropped, batchesDeleted, deadLettersDeleted };
}

export const eventRetentionJob: Job = {
  name: EVENT_RETENTION,
  intervalMs: 10 * 60_000,
  async run(deps) {
    const db = deps.database.db;
    const now = new Date(deps.clock());
    const holder = randomUUID();
    if (!(await claimJobLease(db, EVENT_RETENTION, holder, now, LEASE_MS))) return;
    try {
      const result = await applyRetention(deps, now);
      await releaseJobLease(db, EVENT_RETENTION, holder, {
        nextDue: new Date(now.getTime() + RETENTION_EVERY_MS),
        ranAt: now,
      });
      deps.log.info({ job: EVENT_RETENTION, ...result }, 'event retention applied');
    } catch (err) {
      await releaseJobLease(db, EVENT_RETENTION, holder, { nextDue: now, ranAt: null });
      throw err;
    }
  },
};
