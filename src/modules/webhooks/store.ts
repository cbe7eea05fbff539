import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { sqlRows } from '../../db/raw.js';
import { webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { columnList, fixedStatement, runStatement } from '../../db/statements.js';
import { listPage, type PageRequest } from '../../platform/pagination.js';

// The webhooks module's queries: endpoints (`webhooks`) and the outbox of deliveries
// (`webhook_deliveries`), claimed by the delivery job with a lease.

const w = webhooks;
const d = webhookDeliveries;

/** What an endpoint looks like outside the service: never its secrets. */
const publicColumns = {
  id: w.id,
  tenantId: w.tenantId,
  url: w.url,
  description: w.description,
  events: w.events,
  enabled: w.enabled,
  disabledReason: w.disabledReason,
  previousSecretExpiresAt: w.previousSecretExpiresAt,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
};
export type WebhookRecord = Pick<typeof w.$inferSelect, keyof typeof publicColumns>;

const ofTenant = (tenantId: string, id: string) => and(eq(w.tenantId, tenantId), eq(w.id, id));

export async function insertWebhook(
  exec: Executor,
  row: Omit<typeof w.$inferInsert, 'createdAt' | 'updatedAt'>,
): Promise<WebhookRecord> {
  const [out] = await exec.insert(w).values(row).returning(publicColumns);
  return out!;
}

export async function listWebhooksPage(exec: Executor, tenantId: string, page: PageRequest) {
  const where = eq(w.tenantId, tenantId);
  return listPage(
    exec.select(publicColumns).from(w).where(where).orderBy(desc(w.createdAt), desc(w.id)),
    exec.select({ n: count() }).from(w).where(where),
    page,
  );
}

export async function findWebhook(exec: Executor, tenantId: string, id: string) {
  const [row] = await exec.select(publicColumns).from(w).where(ofTenant(tenantId, id)).limit(1);
  return row;
}

/** The endpoint with its sealed secrets (signing a delivery). */
export async function findWebhookSecrets(exec: Executor, tenantId: string, id: string) {
  const [row] = await exec
    .select({
      ...publicColumns,
      secretEncrypted: w.secretEncrypted,
      previousSecretEncrypted: w.previousSecretEncrypted,
    })
    .from(w)
    .where(ofTenant(tenantId, id))
    .limit(1);
  return row;
}

export async function updateWebhook(
  exec: Executor,
  tenantId: string,
  id: string,
  changes: Partial<
    Pick<
      typeof w.$inferInsert,
      | 'url'
      | 'events'
      | 'description'
      | 'enabled'
      | 'disabledReason'
      | 'secretEncrypted'
      | 'previousSecretEncrypted'
      | 'previousSecretExpiresAt'
    >
  >,
  now: Date,
): Promise<WebhookRecord | undefined> {
  const [row] = await exec
    .update(w)
    .set({ ...changes, updatedAt: now })
    .where(ofTenant(tenantId, id))
    .returning(publicColumns);
  return row;
}

/** Disables an enabled endpoint; undefined when it was not (already disabled or gone): one caller reports it. */
export async function disableEnabledWebhook(exec: Executor, id: string, reason: string, now: Date) {
  const [row] = await exec
    .update(w)
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where(and(eq(w.id, id), eq(w.enabled, true)))
    .returning(publicColumns);
  return row;
}

export async function deleteWebhook(exec: Executor, tenantId: string, id: string) {
  const [row] = await exec.delete(w).where(ofTenant(tenantId, id)).returning({ id: w.id, url: w.url });
  return row;
}

/** The event types each of these tenants' enabled endpoints subscribe to. */
export async function listSubscriptions(exec: Executor, tenantIds: string[]) {
  if (tenantIds.length === 0) return [];
  return sqlRows<{ tenantId: string; events: string[] }>(
    exec,
    sql`select ${w.tenantId} as "tenantId", ${w.events} as "events" from ${w}
      where ${w.enabled} and ${w.tenantId} = any(${sql.param(tenantIds)}::uuid[])`,
  );
}

/** A message to every subscribed endpoint of its tenant. */
export interface OutboxMessage {
  tenantId: string;
  messageId: string;
  type: string;
  payload: string;
}

const ENQUEUE = fixedStatement<{ id: string }, Record<string, unknown>>(sql`
  insert into ${d} ${columnList([d.id, d.tenantId, d.webhookId, d.messageId, d.eventType, d.payload, d.nextAttemptAt, d.createdAt, d.updatedAt])}
  select gen_random_uuid(), ${w.tenantId}, ${w.id}, m.message_id, m.event_type, m.payload,
    ${sql.placeholder('now')}::timestamptz, ${sql.placeholder('now')}::timestamptz, ${sql.placeholder('now')}::timestamptz
  from unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('messageIds')}::text[],
    ${sql.placeholder('types')}::text[], ${sql.placeholder('payloads')}::text[]) as m (tenant_id, message_id, event_type, payload)
  join ${w} on ${w.tenantId} = m.tenant_id and ${w.enabled} and m.event_type = any(${w.events})
  returning ${d.id} as id`);

/** Writes one delivery per (message, enabled endpoint subscribed to its type); returns how many. */
export async function enqueueDeliveries(
  exec: Executor,
  messages: OutboxMessage[],
  now: Date,
): Promise<number> {
  if (messages.length === 0) return 0;
  const rows = await runStatement(exec, ENQUEUE, {
    now: now.toISOString(),
    tenantIds: messages.map((m) => m.tenantId),
    messageIds: messages.map((m) => m.messageId),
    types: messages.map((m) => m.type),
    payloads: messages.map((m) => m.payload),
  });
  return rows.length;
}

/** One delivery to one endpoint, whatever it subscribes to (test events, replays). */
export async function insertDelivery(
  exec: Executor,
  row: Pick<typeof d.$inferInsert, 'id' | 'tenantId' | 'webhookId' | 'messageId' | 'eventType' | 'payload'>,
  now: Date,
) {
  const [out] = await exec
    .insert(d)
    .values({ ...row, nextAttemptAt: now, createdAt: now, updatedAt: now })
    .returning(deliveryColumns);
  return out!;
}

const deliveryColumns = {
  id: d.id,
  webhookId: d.webhookId,
  messageId: d.messageId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt,
  responseStatus: d.responseStatus,
  responseBody: d.responseBody,
  latencyMs: d.latencyMs,
  lastError: d.lastError,
  deliveredAt: d.deliveredAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
};
export type DeliveryRecord = Pick<typeof d.$inferSelect, keyof typeof deliveryColumns>;

export async function listDeliveriesPage(
  exec: Executor,
  tenantId: string,
  webhookId: string,
  page: PageRequest,
  status?: string,
) {
  const where = and(
    eq(d.tenantId, tenantId),
    eq(d.webhookId, webhookId),
    status ? eq(d.status, status as DeliveryRecord['status']) : undefined,
  );
  return listPage(
    exec.select(deliveryColumns).from(d).where(where).orderBy(desc(d.createdAt), desc(d.id)),
    exec.select({ n: count() }).from(d).where(where),
    page,
  );
}

export async function findDelivery(exec: Executor, tenantId: string, webhookId: string, id: string) {
  const [row] = await exec
    .select({ ...deliveryColumns, payload: d.payload })
    .from(d)
    .where(and(eq(d.tenantId, tenantId), eq(d.webhookId, webhookId), eq(d.id, id)))
    .limit(1);
  return row;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  tenantId: string;
  webhookId: string;
  messageId: string;
  eventType: string;
  payload: string;
  /** This claim's attempt number: the token the attempt's outcome is written with. */
  attempts: number;
  createdAt: Date;
  url: string;
  enabled: boolean;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
}

const CLAIM = fixedStatement<ClaimedDelivery, { now: string; leaseUntil: string; limit: number }>(sql`
  with due as (
    select ${d.id} as id from ${d}
    where ${d.status} = 'pending' and ${d.nextAttemptAt} <= ${sql.placeholder('now')}::timestamptz
      and (${d.leaseUntil} is null or ${d.leaseUntil} <= ${sql.placeholder('now')}::timestamptz)
    order by ${d.nextAttemptAt} limit ${sql.placeholder('limit')}
    for update skip locked
  )
  update ${d} set lease_until = ${sql.placeholder('leaseUntil')}::timestamptz, attempts = ${d.attempts} + 1,
    updated_at = ${sql.placeholder('now')}::timestamptz
  from due, ${w}
  where ${d.id} = due.id and ${w.id} = ${d.webhookId}
  returning ${d.id} as "id", ${d.tenantId} as "tenantId", ${d.webhookId} as "webhookId", ${d.messageId} as "messageId",
    ${d.eventType} as "eventType", ${d.payload} as "payload", ${d.attempts} as "attempts", ${d.createdAt} as "createdAt",
    ${w.url} as "url", ${w.enabled} as "enabled", ${w.secretEncrypted} as "secretEncrypted",
    ${w.previousSecretEncrypted} as "previousSecretEncrypted", ${w.previousSecretExpiresAt} as "previousSecretExpiresAt"`);

/**
 * Claims up to `limit` due deliveries until `leaseUntil`, counting the attempt: another instance
 * never takes a row held (SKIP LOCKED) or leased; a lease that ran out (its instance crashed
 * mid-delivery) makes the row due again, with the same message id.
 */
export async function claimDueDeliveries(exec: Executor, now: Date, leaseUntil: Date, limit: number) {
  const rows = await runStatement(exec, CLAIM, {
    now: now.toISOString(),
    leaseUntil: leaseUntil.toISOString(),
    limit,
  });
  return rows.map((r) => ({
    ...r,
    createdAt: new Date(r.createdAt),
    previousSecretExpiresAt: r.previousSecretExpiresAt ? new Date(r.previousSecretExpiresAt) : null,
  }));
}

export interface AttemptOutcome {
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  responseBody: string | null;
  latencyMs: number | null;
  lastError: string | null;
}

/** Writes an attempt's outcome, if the row is still this claim's (same attempt number, still pending). */
export async function finishAttempt(
  exec: Executor,
  claim: { id: string; attempts: number },
  outcome: AttemptOutcome,
  now: Date,
): Promise<boolean> {
  const rows = await exec
    .update(d)
    .set({
      status: outcome.status,
      leaseUntil: null,
      nextAttemptAt: outcome.nextAttemptAt ?? now,
      responseStatus: outcome.responseStatus,
      responseBody: outcome.responseBody,
      latencyMs: outcome.latencyMs,
      lastError: outcome.lastError,
      deliveredAt: outcome.status === 'delivered' ? now : null,
      updatedAt: now,
    })
    .where(and(eq(d.id, claim.id), eq(d.attempts, claim.attempts), eq(d.status, 'pending')))
    .returning({ id: d.id });
  return rows.length > 0;
}

/** Fails the pending deliveries of a disabled endpoint. */
export async function failPendingDeliveries(exec: Executor, webhookId: string, reason: string, now: Date) {
  await exec
    .update(d)
    .set({ status: 'failed', leaseUntil: null, lastError: reason, updatedAt: now })
    .where(and(eq(d.webhookId, webhookId), eq(d.status, 'pending')));
}

const NEXT_DUE = fixedStatement<{ due: Date | string | null }, { until: string }>(
  sql`select min(${d.nextAttemptAt}) as due from ${d}
    where ${d.status} = 'pending' and ${d.nextAttemptAt} <= ${sql.placeholder('until')}::timestamptz`,
);

/** The earliest due delivery up to `until` (epoch ms), or null. */
export async function findNextDueDelivery(exec: Executor, until: Date): Promise<number | null> {
  const [row] = await runStatement(exec, NEXT_DUE, { until: until.toISOString() });
  return row?.due ? new Date(row.due).getTime() : null;
}
