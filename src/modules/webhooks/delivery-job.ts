import type { AppDeps, Job } from '../../deps.js';
import { recordAudit } from '../../platform/audit.js';
import { listOwnerEmails } from '../tenants/index.js';
import { nextAttemptAt } from './engine/retry.js';
import { postTo, resolveTarget } from './sender.js';
import { signatureHeader } from './signature.js';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  disableEnabledWebhook,
  failPendingDeliveries,
  findNextDueDelivery,
  finishAttempt,
} from './store.js';

/**
 * The delivery job: claims due outbox rows with a lease (the attempt counted at the claim), sends
 * each outside any transaction, and writes the outcome only if the row is still its claim's. An
 * instance killed mid-delivery leaves its rows leased; when the lease runs out they are due
 * again and sent with the same `webhook-id` (at least once).
 *
 * 2xx: delivered. 410 Gone: the endpoint is disabled. Anything else (a 3xx included: redirects
 * are not followed; a refused address; a timeout): retried with backoff (engine/retry.ts) until
 * the maximum period, after which the delivery fails, the endpoint is disabled, audited, and the
 * tenant's owners are emailed.
 */

export type DeliveryDeps = Pick<
  AppDeps,
  'database' | 'clock' | 'config' | 'encryptor' | 'state' | 'log' | 'mailer'
>;

export const WEBHOOK_DELIVERIES = 'webhook-deliveries';
const CHUNK = 50;
/** A claim's lease: twice the attempt's ceiling and a second (21 s with the default 10 s timeout). */
const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 1_000;
const INTERVAL_MS = 500;

/** The secrets that sign a delivery now: the current one, and the previous one within its grace. */
function secretsOf(deps: DeliveryDeps, c: ClaimedDelivery, now: number): string[] {
  const secrets = [deps.encryptor.decrypt(c.secretEncrypted)];
  if (c.previousSecretEncrypted && c.previousSecretExpiresAt && c.previousSecretExpiresAt.getTime() > now)
    secrets.push(deps.encryptor.decrypt(c.previousSecretEncrypted));
  return secrets;
}

/** The Standard Webhooks headers of a message, signed at `now`. */
export function signedHeaders(secrets: string[], messageId: string, nowMs: number, body: string) {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, messageId, timestamp, body),
  };
}

async function disableEndpoint(deps: DeliveryDeps, c: ClaimedDelivery, reason: string, notify: boolean) {
  const now = new Date(deps.clock());
  const disabled = await deps.database.db.transaction(async (tx) => {
    const row = await disableEnabledWebhook(tx, c.webhookId, reason, now);
    if (!row) return null;
    await failPendingDeliveries(tx, c.webhookId, 'endpoint disabled', now);
    await recordAudit(tx, {
      tenantId: c.tenantId,
      action: 'WEBHOOK_DISABLED',
      entityType: 'webhook',
      entityId: c.webhookId,
      metadata: { url: row.url, reason, deliveryId: c.id },
    });
    return row;
  });
  if (!disabled) return;
  deps.log.warn({ webhookId: c.webhookId, reason }, 'webhook endpoint disabled');
  if (!notify) return;
  for (const to of await listOwnerEmails(deps.database.db, c.tenantId)) {
    await deps.mailer.send({
      tenantId: c.tenantId,
      to,
      subject: 'A webhook endpoint was disabled',
      text:
        `Deliveries to your webhook endpoint ${disabled.url} have failed for ` +
        `${Math.round(deps.config.webhooks.retryMaxMs / 3_600_000)} hours, so it was disabled (${reason}).\n\n` +
        `Fix the receiver, then enable the endpoint again and replay the failed deliveries: ${deps.config.appUrl}/webhooks\n`,
    });
  }
}

/** Sends one claimed delivery and records the outcome. */
export async function deliverOne(deps: DeliveryDeps, c: ClaimedDelivery): Promise<void> {
  const started = deps.clock();
  const write = (o: AttemptOutcome) => finishAttempt(deps.database.db, c, o, new Date(deps.clock()));
  if (!c.enabled) {
    await write({
      status: 'failed',
      nextAttemptAt: null,
      responseStatus: null,
      responseBody: null,
      latencyMs: null,
      lastError: 'endpoint disabled',
    });
    return;
  }
  const policy = { allowPrivate: deps.config.webhooks.allowPrivate, resolver: deps.state.webhooks!.resolver };
  const target = await resolveTarget(c.url, policy);
  const result = target.ok
    ? await postTo(
        target,
        signedHeaders(secretsOf(deps, c, started), c.messageId, started, c.payload),
        c.payload,
        deps.config.webhooks.timeoutMs,
      )
    : { status: null, body: null, error: `refused: url ${target.message}`, latencyMs: 0 };
  const now = deps.clock();
  const base = {
    responseStatus: result.status,
    responseBody: result.body,
    latencyMs: target.ok ? result.latencyMs : null,
    lastError: result.error,
  };
  if (result.status !== null && result.status >= 200 && result.status < 300) {
    await write({ ...base, status: 'delivered', nextAttemptAt: null });
    return;
  }
  if (result.status === 410) {
    await write({ ...base, status: 'failed', nextAttemptAt: null });
    await disableEndpoint(deps, c, 'the receiver answered 410 Gone', false);
    return;
  }
  const next = nextAttemptAt(
    { createdAt: c.createdAt.getTime(), now, attempts: c.attempts, random: Math.random() },
    { baseMs: deps.config.webhooks.retryBaseMs, maxMs: deps.config.webhooks.retryMaxMs },
  );
  if (next === null) {
    await write({ ...base, status: 'failed', nextAttemptAt: null });
    await disableEndpoint(
      deps,
      c,
      `deliveries failed for ${deps.config.webhooks.retryMaxMs / 3_600_000} hours`,
      true,
    );
    return;
  }
  await write({ ...base, status: 'pending', nextAttemptAt: new Date(next) });
}

/** Delivers every due row, chunk after chunk; returns how many attempts were made. */
export async function deliverDue(deps: DeliveryDeps, opts: { chunk?: number } = {}): Promise<number> {
  const chunk = opts.chunk ?? CHUNK;
  let total = 0;
  for (;;) {
    const now = deps.clock();
    const claimed = await claimDueDeliveries(
      deps.database.db,
      new Date(now),
      new Date(now + leaseMs(deps.config.webhooks.timeoutMs)),
      chunk,
    );
    await Promise.all(
      claimed.map((c) =>
        deliverOne(deps, c).catch((err) =>
          deps.log.error({ err, deliveryId: c.id }, 'webhook delivery failed'),
        ),
      ),
    );
    total += claimed.length;
    if (claimed.length < chunk) return total;
  }
}

/**
 * Every half second, and exactly when the next retry comes due when that is sooner (as the
 * journey timers do). Any number of instances may run it: claims never overlap.
 */
export const webhookDeliveriesJob: Job = {
  name: WEBHOOK_DELIVERIES,
  intervalMs: INTERVAL_MS,
  async run(deps) {
    const sent = await deliverDue(deps);
    if (sent > 0) deps.log.debug({ job: WEBHOOK_DELIVERIES, sent }, 'webhook deliveries attempted');
    const now = deps.clock();
    const due = await findNextDueDelivery(deps.database.db, new Date(now + INTERVAL_MS));
    const wait = due === null ? null : due - now;
    if (wait !== null && wait > 0) setTimeout(() => deps.wakeWorker(WEBHOOK_DELIVERIES), wait).unref();
  },
};
