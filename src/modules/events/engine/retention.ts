/**
 * What one run of the retention job does (docs/retention.md), decided without I/O from the
 * time, every tenant's retention and the event log's partitions.
 *
 * A tenant's events received before its cutoff — the start of today (UTC) minus its plan's
 * retention in days — are removed. On PostgreSQL the log is partitioned by month: a month is
 * dropped whole once it ends before the cutoff of the longest retention any tenant has (then no
 * tenant keeps a row of it); tenants with a shorter retention lose their older rows from the
 * months still kept by batched DELETEs. Tenants on the longest retention wait for their month's
 * drop, so they keep events up to one month past their retention: deleting them day by day
 * would turn every partition drop into the long DELETE partitioning is there to avoid.
 * Without partitions (the embedded database) every tenant's rows go by DELETE, on the day.
 */

export const DAY_MS = 86_400_000;
/** Months prepared ahead of the current one, so inserts never wait for a partition. */
export const MONTHS_AHEAD = 2;

export interface TenantRetention {
  tenantId: string;
  /** Days kept; null = forever. */
  retentionDays: number | null;
}

/** A month partition of the log: rows received in [from, until). */
export interface LogPartition {
  name: string;
  from: Date;
  until: Date;
}

export interface RetentionInput {
  now: Date;
  tenants: readonly TenantRetention[];
  /** Whether the log is partitioned (PostgreSQL); when not, `partitions` is empty. */
  partitioned: boolean;
  partitions: readonly LogPartition[];
}

export interface RetentionPlan {
  /** Rows before this are in no tenant's retention (null: some tenant keeps events forever). */
  horizon: Date | null;
  /** Partitions to drop whole. */
  drop: string[];
  /** Per tenant: the log's rows received before `before` to DELETE, in batches. */
  deleteBatches: { tenantId: string; before: Date }[];
  /** Per tenant: dead letters (one event each, never partitioned) set aside before `before` to DELETE. */
  deleteDeadLetters: { tenantId: string; before: Date }[];
}

const startOfUtcDay = (t: Date): number => Math.floor(t.getTime() / DAY_MS) * DAY_MS;

/** The first day of the month `offset` months after `t`'s, as `YYYY-MM-01`. */
export function monthOf(t: Date, offset = 0): string {
  const d = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + offset, 1));
  return d.toISOString().slice(0, 10);
}

export function planRetention(input: RetentionInput): RetentionPlan {
  const day = startOfUtcDay(input.now);
  const cutoff = (days: number) => new Date(day - days * DAY_MS);
  const kept = input.tenants.filter(
    (t): t is { tenantId: string; retentionDays: number } => t.retentionDays !== null,
  );
  const longest =
    input.tenants.length === 0 || kept.length < input.tenants.length
      ? null
      : Math.max(...kept.map((t) => t.retentionDays));
  const horizon = longest === null ? null : cutoff(longest);

  const drop =
    input.partitioned && horizon
      ? input.partitions.filter((p) => p.until.getTime() <= horizon.getTime()).map((p) => p.name)
      : [];
  const deleteBatches = kept
    .filter((t) => !input.partitioned || longest === null || t.retentionDays < longest)
    .map((t) => ({ tenantId: t.tenantId, before: cutoff(t.retentionDays) }));
  const deleteDeadLetters = kept.map((t) => ({ tenantId: t.tenantId, before: cutoff(t.retentionDays) }));
  return { horizon, drop, deleteBatches, deleteDeadLetters };
}

/**
 * The months (`YYYY-MM-01`) whose partition must exist: this one and MONTHS_AHEAD more, and those
 * the default partition holds rows of (`defaultMonths`: received while no partition covered them).
 */
export function monthsToPrepare(now: Date, defaultMonths: readonly string[]): string[] {
  const ahead = Array.from({ length: MONTHS_AHEAD + 1 }, (_, i) => monthOf(now, i));
  return [...new Set([...defaultMonths, ...ahead])].sort();
}
