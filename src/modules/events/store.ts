import { and, asc, eq, getTableName, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { preparedQuery } from '../../db/prepared.js';
import { sqlRows } from '../../db/raw.js';
import { eventBatches, eventDeadLetters, processedEventIds } from '../../db/schema/index.js';
import {
  bare,
  columnList,
  fixedStatement,
  microsIso,
  runPrepared,
  runStatement,
} from '../../db/statements.js';

/**
 * The events module's queries: the log of accepted batches (`event_batches`), the client event
 * ids already processed (`processed_event_ids`) and the events set aside (`event_dead_letters`).
 * All are on the ingestion or processing hot path: fixed statements rendered once, the frequent
 * ones run as named prepared statements (bench/README.md, "Events pipeline, memory and
 * compression"; bench/RESULTS.md, "Processing per event against the parse-only yardstick").
 */

const p = sql.placeholder;
const b = eventBatches;

/**
 * Where a body goes: text on PostgreSQL (which compresses it in its own process), brotli bytes
 * on PGlite, whose own compression runs in WebAssembly on the server's thread (migration 0065).
 */
export type BodyColumn = 'events' | 'events_br';

/** A batch as the writer stores it (its body passed apart, in the form of its column). */
export interface EventBatchInsert {
  id: string;
  tenantId: string;
  correlationId: string;
  apiKeyId: string | null;
  receivedAt: Date;
  eventCount: number;
  source: 'sdk' | 'server';
}

const INSERT_COLUMNS = 8;
const insertTexts = new Map<string, string>();

/** Row counts the INSERT is prepared for: a batch is padded up to the next one. */
const roundUp = (rows: number): number => 2 ** Math.ceil(Math.log2(rows));

/**
 * One prepared multi-row INSERT per power-of-two row count (a few statements, each parsed and
 * planned once per connection): a batch binds its rows and pads the rest with nulls, which the
 * `where` drops. Bodies travel as plain parameters, with none of the escaping an array literal
 * of them would need.
 */
function insertText(rows: number, body: BodyColumn): string {
  const key = `${body}:${rows}`;
  let text = insertTexts.get(key);
  if (!text) {
    const bodyType = body === 'events' ? 'text' : 'bytea';
    const tuples = Array.from({ length: rows }, (_, r) => {
      const at = (c: number) => `$${r * INSERT_COLUMNS + c}`;
      return `(${at(1)}::uuid, ${at(2)}::uuid, ${at(3)}::uuid, ${at(4)}::uuid, ${at(5)}::timestamptz, ${at(6)}::int, ${at(7)}::${bodyType}, ${at(8)}::text)`;
    });
    const columns = [
      b.id,
      b.tenantId,
      b.correlationId,
      b.apiKeyId,
      b.receivedAt,
      b.eventCount,
      body === 'events' ? b.events : b.eventsBr,
      b.source,
    ];
    text = fixedStatement(
      sql`insert into ${b} ${columnList(columns)}
      select * from (values ${sql.raw(tuples.join(', '))}) as v ${columnList(columns)}
      where v.id is not null`,
    ).text;
    insertTexts.set(key, text);
  }
  return text;
}

/** Stores the batches in one statement; `bodies[i]` is batch i's body, in the form of `body`'s column. */
export async function insertEventBatches(
  exec: Executor,
  batches: readonly EventBatchInsert[],
  body: BodyColumn,
  bodies: readonly (string | Uint8Array)[],
): Promise<void> {
  const rows = roundUp(batches.length);
  const params = new Array<unknown>(rows * INSERT_COLUMNS).fill(null);
  batches.forEach((batch, r) => {
    const at = r * INSERT_COLUMNS;
    params[at] = batch.id;
    params[at + 1] = batch.tenantId;
    params[at + 2] = batch.correlationId;
    params[at + 3] = batch.apiKeyId;
    params[at + 4] = batch.receivedAt.toISOString();
    params[at + 5] = batch.eventCount;
    params[at + 6] = bodies[r];
    params[at + 7] = batch.source;
  });
  await preparedQuery(exec, insertText(rows, body), params);
}

/** A batch claimed for processing, as read back from the log. */
export interface ClaimedBatch {
  id: string;
  tenant_id: string;
  correlation_id: string;
  received_at: Date | string;
  event_count: number;
  events: string | null;
  events_br: Uint8Array | null;
  source: 'sdk' | 'server';
}

const claimed = sql`${b.id}, ${b.tenantId}, ${b.correlationId}, ${b.receivedAt}, ${b.eventCount}, ${b.events},
  ${b.eventsBr}, ${b.source}`;

/** New batches only: one whose processing failed is retried on its own (claimBatch). */
const claimNewStatement = fixedStatement<ClaimedBatch, { skipIds: string[]; limit: number }>(
  sql`select ${claimed} from ${b}
  where ${b.processedAt} is null and ${b.attempts} = 0 and not (${b.id} = any(${p('skipIds')}::uuid[]))
  order by ${b.id} limit ${p('limit')} for update skip locked`,
);

/** Locks up to `limit` pending new batches (not `skipIds`, nor any another transaction holds), oldest id first. */
export function claimNewBatches(tx: Executor, limit: number, skipIds: string[]): Promise<ClaimedBatch[]> {
  return runPrepared(tx, claimNewStatement, { skipIds, limit });
}

const claimOneStatement = fixedStatement<ClaimedBatch, { id: string }>(
  sql`select ${claimed} from ${b} where ${b.id} = ${p('id')} and ${b.processedAt} is null for update skip locked`,
);

/** Locks the batch `id` if it is pending and no other transaction holds it. */
export function claimBatch(tx: Executor, id: string): Promise<ClaimedBatch[]> {
  return runStatement(tx, claimOneStatement, { id });
}

/**
 * Batches handed over in memory: claimed and marked processed in one statement (the transaction
 * rolls the mark back if an effect fails). Those another processor holds or has processed are
 * left out. `since` (the earliest of their received times) lets PostgreSQL visit only the log's
 * recent month partitions instead of probing every month's key for each id (docs/retention.md).
 */
const claimHandedStatement = fixedStatement<{ id: string }, { ids: string[]; since: string }>(
  sql`update ${b} set ${bare(b.processedAt)} = now()
  where ${b.receivedAt} >= ${p('since')}::timestamptz
    and ${b.id} in (select ${b.id} from ${b} where ${b.id} = any(${p('ids')}::uuid[])
      and ${b.receivedAt} >= ${p('since')}::timestamptz and ${b.processedAt} is null
      and ${b.attempts} = 0 for update skip locked)
  returning ${b.id}`,
);

/** Claims and marks processed those of the batches `ids`, received at `since` or later, still pending (the ids claimed). */
export function claimHandedBatches(tx: Executor, ids: string[], since: Date): Promise<{ id: string }[]> {
  return runPrepared(tx, claimHandedStatement, { ids, since: since.toISOString() });
}

const retryingStatement = fixedStatement<{ id: string }, { limit: number }>(
  sql`select ${b.id} from ${b} where ${b.processedAt} is null and ${b.attempts} > 0 order by ${b.id} limit ${p('limit')}`,
);

/** Up to `limit` pending batches whose processing failed before, oldest id first. */
export function findRetryingBatches(exec: Executor, limit: number): Promise<{ id: string }[]> {
  return runPrepared(exec, retryingStatement, { limit });
}

const markProcessedStatement = fixedStatement<never, { ids: string[] }>(
  sql`update ${b} set ${bare(b.processedAt)} = now() where ${b.id} = any(${p('ids')}::uuid[])`,
);

export async function markBatchesProcessed(tx: Executor, ids: string[]): Promise<void> {
  await runPrepared(tx, markProcessedStatement, { ids });
}

const recordFailureStatement = fixedStatement<
  { attempts: number; correlation_id: string },
  { id: string; error: string; giveUpAfter: number }
>(
  sql`update ${b} set ${bare(b.attempts)} = ${b.attempts} + 1, ${bare(b.lastError)} = ${p('error')},
    ${bare(b.processedAt)} = case when ${b.attempts} + 1 >= ${p('giveUpAfter')} then now() else null end
  where ${b.id} = ${p('id')} returning ${b.attempts}, ${b.correlationId}`,
);

/**
 * Counts a failed attempt at the batch `id` with its error; at `giveUpAfter` attempts the batch is
 * set aside (marked processed). Its attempts and correlation id after.
 */
export async function recordBatchFailure(exec: Executor, id: string, error: string, giveUpAfter: number) {
  const [row] = await runStatement(exec, recordFailureStatement, { id, error, giveUpAfter });
  return row;
}

const dl = eventDeadLetters;
/** All dead letters of a chunk in one statement, whatever their number. */
const insertDeadLettersStatement = fixedStatement<
  never,
  {
    ids: string[];
    tenantIds: string[];
    batchIds: string[];
    correlationIds: string[];
    events: string[];
    reasons: string[];
  }
>(
  sql`insert into ${dl} ${columnList([dl.id, dl.tenantId, dl.batchId, dl.correlationId, dl.event, dl.reason])}
  select * from unnest(${p('ids')}::uuid[], ${p('tenantIds')}::uuid[], ${p('batchIds')}::uuid[],
    ${p('correlationIds')}::uuid[], ${p('events')}::jsonb[], ${p('reasons')}::text[])`,
);

/** Sets events aside (`event`: the event as JSON text). */
export async function insertDeadLetters(
  tx: Executor,
  letters: readonly {
    id: string;
    tenantId: string;
    batchId: string;
    correlationId: string;
    event: string;
    reason: string;
  }[],
): Promise<void> {
  await runStatement(tx, insertDeadLettersStatement, {
    ids: letters.map((l) => l.id),
    tenantIds: letters.map((l) => l.tenantId),
    batchIds: letters.map((l) => l.batchId),
    correlationIds: letters.map((l) => l.correlationId),
    events: letters.map((l) => l.event),
    reasons: letters.map((l) => l.reason),
  });
}

const pe = processedEventIds;
const insertProcessedStatement = fixedStatement<
  { tenant_id: string; event_id: string },
  { tenantIds: string[]; eventIds: string[] }
>(
  sql`insert into ${pe} ${columnList([pe.tenantId, pe.eventId])}
  select * from unnest(${p('tenantIds')}::uuid[], ${p('eventIds')}::uuid[]) on conflict do nothing
  returning ${pe.tenantId}, ${pe.eventId}`,
);

/** Records the client event ids (`tenantIds[i]`, `eventIds[i]`); answers those not recorded before. */
export function insertProcessedEventIds(
  tx: Executor,
  tenantIds: string[],
  eventIds: string[],
): Promise<{ tenant_id: string; event_id: string }[]> {
  return runPrepared(tx, insertProcessedStatement, { tenantIds, eventIds });
}

// End-user erasure and export (modules/privacy, docs/privacy.md): the tenant's batches read by
// keyset pages, a rewritten body stored in the column that held it, dead letters by their event.

/** A stored batch's body, as read for erasure or export. */
export interface StoredBatchBody {
  id: string;
  receivedAt: Date;
  source: 'sdk' | 'server';
  events: string | null;
  eventsBr: Buffer | null;
}

/**
 * The tenant's batches after `afterId` (id order, `limit` of them) whose body may name one of
 * `needles`: a text body must contain one (null: any); a compressed body is always read (its text is unknown).
 */
export function findBatchBodiesNaming(
  exec: Executor,
  tenantId: string,
  needles: readonly string[] | null,
  afterId: string | null,
  limit: number,
): Promise<StoredBatchBody[]> {
  const naming =
    needles === null
      ? sql`true`
      : sql.join(
          needles.map((n) => sql`strpos(${b.events}, ${n}) > 0`),
          sql` or `,
        );
  return exec
    .select({ id: b.id, receivedAt: b.receivedAt, source: b.source, events: b.events, eventsBr: b.eventsBr })
    .from(b)
    .where(
      sql`${b.tenantId} = ${tenantId} and (${b.eventsBr} is not null or ${naming})
        ${afterId ? sql`and ${b.id} > ${afterId}` : sql``}`,
    )
    .orderBy(b.id)
    .limit(limit);
}

/** Replaces a batch's body (in the column that held it) and its event count. */
export async function rewriteBatchBody(
  tx: Executor,
  id: string,
  body: { events: string | null; eventsBr: Buffer | null },
  eventCount: number,
): Promise<void> {
  await tx
    .update(b)
    .set({ events: body.events, eventsBr: body.eventsBr, eventCount })
    .where(sql`${b.id} = ${id}`);
}

/** Deletes batches left with no event. */
export async function deleteBatches(tx: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.delete(b).where(sql`${b.id} = any(${sql.param([...ids])}::uuid[])`);
}

/** The dead letters of events by `userId`, or by one of `anonymousIds` with no userId. */
const deadLettersOf = (tenantId: string, userId: string, anonymousIds: readonly string[]) =>
  sql`${dl.tenantId} = ${tenantId} and (${dl.event}->>'userId' = ${userId}
    or (${dl.event}->>'userId' is null and ${dl.event}->>'anonymousId' = any(${sql.param([...anonymousIds])}::text[])))`;

export function findDeadLettersOf(
  exec: Executor,
  tenantId: string,
  userId: string,
  anonymousIds: readonly string[],
) {
  return exec
    .select({ id: dl.id, event: dl.event, reason: dl.reason, createdAt: dl.createdAt })
    .from(dl)
    .where(deadLettersOf(tenantId, userId, anonymousIds))
    .orderBy(dl.createdAt, dl.id);
}

export async function deleteDeadLettersOf(
  tx: Executor,
  tenantId: string,
  userId: string,
  anonymousIds: readonly string[],
): Promise<number> {
  const rows = await tx
    .delete(dl)
    .where(deadLettersOf(tenantId, userId, anonymousIds))
    .returning({ id: dl.id });
  return rows.length;
}

/** A stored batch as the export reads it: `receivedAt` as UTC text to the microsecond (the keyset's exact value). */
export interface ExportedBatch {
  receivedAt: string;
  id: string;
  source: 'sdk' | 'server';
  events: string | null;
  eventsBr: Uint8Array | null;
}

/** Where an export page starts: after (or, `inclusive`, at) the batch received at `at` with id `id`. */
export interface BatchPosition {
  at: string;
  id: string;
  inclusive: boolean;
}

/**
 * A page of the tenant's batches received in [from, until), in the log's order (received time,
 * then id), from `after` on: keyset pagination over `event_batches_tenant_received_idx`, so every
 * page costs the same however deep the export is (docs/export.md).
 */
export function findBatchesForExport(
  exec: Executor,
  tenantId: string,
  range: { from: Date | null; until: Date },
  after: BatchPosition | null,
  limit: number,
): Promise<ExportedBatch[]> {
  const where: SQL[] = [eq(b.tenantId, tenantId), lt(b.receivedAt, range.until)];
  if (range.from) where.push(gte(b.receivedAt, range.from));
  if (after) {
    const key = sql`(${b.receivedAt}, ${b.id})`;
    const at = sql`(${after.at}::timestamptz, ${after.id}::uuid)`;
    where.push(after.inclusive ? sql`${key} >= ${at}` : sql`${key} > ${at}`);
  }
  return exec
    .select({
      receivedAt: microsIso(b.receivedAt),
      id: b.id,
      source: b.source,
      events: b.events,
      eventsBr: b.eventsBr,
    })
    .from(b)
    .where(and(...where))
    .orderBy(asc(b.receivedAt), asc(b.id))
    .limit(limit);
}

// Retention (retention.ts, docs/retention.md): the log's month partitions on PostgreSQL (named by
// the SQL function `event_batches_add_month`, migration 0096), and batched DELETEs by tenant and time.

const LOG_TABLE = getTableName(b);
const MONTH_PARTITION = new RegExp(`^${LOG_TABLE}_p(\\d{4})_(\\d{2})$`);

/** Whether `event_batches` is partitioned (PostgreSQL) rather than one table (the embedded database). */
export async function isEventLogPartitioned(exec: Executor): Promise<boolean> {
  const [row] = await sqlRows<{ partitioned: boolean }>(
    exec,
    sql`select relkind = 'p' as partitioned from pg_class where oid = ${LOG_TABLE}::regclass`,
  );
  return row?.partitioned === true;
}

/** The log's month partitions, oldest first (the default partition is not one). */
export async function listLogPartitions(
  exec: Executor,
): Promise<{ name: string; from: Date; until: Date }[]> {
  const rows = await sqlRows<{ name: string }>(
    exec,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ${LOG_TABLE}::regclass order by c.relname`,
  );
  return rows.flatMap(({ name }) => {
    const m = MONTH_PARTITION.exec(name);
    if (!m) return [];
    const [year, month] = [Number(m[1]), Number(m[2]) - 1];
    return [
      { name, from: new Date(Date.UTC(year, month, 1)), until: new Date(Date.UTC(year, month + 1, 1)) },
    ];
  });
}

/** Months (`YYYY-MM-01`, UTC) of the rows in the default partition. */
export async function findDefaultPartitionMonths(exec: Executor): Promise<string[]> {
  const rows = await sqlRows<{ month: string }>(
    exec,
    sql`select distinct to_char(${b.receivedAt} at time zone 'UTC', 'YYYY-MM-01') as month
      from ${sql.identifier(`${LOG_TABLE}_default`)} as ${b}`,
  );
  return rows.map((r) => r.month);
}

/** Adds the partition of `month` (`YYYY-MM-01`) unless it exists (moving its rows out of the default one). */
export async function addLogMonth(exec: Executor, month: string): Promise<boolean> {
  const [row] = await sqlRows<{ added: boolean }>(
    exec,
    sql`select event_batches_add_month(${month}::date) as added`,
  );
  return row?.added === true;
}

/**
 * Drops a month partition. DROP takes the log's lock for a moment, so new inserts queue behind
 * it: it waits at most `lockTimeoutMs` for queries in flight, and fails (retried at the next
 * run) rather than holding ingestion up longer.
 */
export async function dropLogPartition(db: Database, name: string, lockTimeoutMs: number): Promise<void> {
  if (!MONTH_PARTITION.test(name)) throw new Error(`not a month partition of the event log: ${name}`);
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = ${Math.trunc(lockTimeoutMs)}`));
    await tx.execute(sql`drop table ${sql.identifier(name)}`);
  });
}

/**
 * Deletes the tenant's `limit` oldest batches received in [from, before) (from null: any time
 * before); returns how many, and the latest received time among them, where the next call starts.
 * Each call starts from there instead of the beginning: the index entries of rows just deleted
 * stay until a vacuum, and a scan from the beginning would step over all of them every time.
 */
export async function deleteBatchesBefore(
  exec: Executor,
  tenantId: string,
  range: { from: Date | null; before: Date },
  limit: number,
): Promise<{ deleted: number; last: Date | null }> {
  const where = [eq(b.tenantId, tenantId), lt(b.receivedAt, range.before)];
  if (range.from) where.push(gte(b.receivedAt, range.from));
  const some = exec
    .select({ id: b.id, receivedAt: b.receivedAt })
    .from(b)
    .where(and(...where))
    .orderBy(asc(b.receivedAt))
    .limit(limit);
  const rows = await exec
    .delete(b)
    .where(and(...where, sql`(${b.id}, ${b.receivedAt}) in (${some})`))
    .returning({ receivedAt: b.receivedAt });
  let last: Date | null = null;
  for (const r of rows) if (!last || r.receivedAt > last) last = r.receivedAt;
  return { deleted: rows.length, last };
}

/** Deletes the tenant's `limit` oldest dead letters set aside in [from, before), as deleteBatchesBefore. */
export async function deleteDeadLettersBefore(
  exec: Executor,
  tenantId: string,
  range: { from: Date | null; before: Date },
  limit: number,
): Promise<{ deleted: number; last: Date | null }> {
  const where = [eq(dl.tenantId, tenantId), lt(dl.createdAt, range.before)];
  if (range.from) where.push(gte(dl.createdAt, range.from));
  const some = exec
    .select({ id: dl.id })
    .from(dl)
    .where(and(...where))
    .orderBy(asc(dl.createdAt))
    .limit(limit);
  const rows = await exec
    .delete(dl)
    .where(and(...where, sql`${dl.id} in (${some})`))
    .returning({ createdAt: dl.createdAt });
  let last: Date | null = null;
  for (const r of rows) if (!last || r.createdAt > last) last = r.createdAt;
  return { deleted: rows.length, last };
}
