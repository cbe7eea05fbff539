import type { AppDeps } from '../../deps.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { notFound, validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { TEST_EVENT_TYPE } from './engine/event-types.js';
import { forgetSubscriptions, newMessageId, payloadOf } from './outbox.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './schemas.js';
import { resolveTarget } from './sender.js';
import { newSigningSecret } from './signature.js';
import {
  deleteWebhook,
  failPendingDeliveries,
  findDelivery,
  findWebhook,
  findWebhookSecrets,
  insertDelivery,
  insertWebhook,
  listDeliveriesPage,
  listWebhooksPage,
  updateWebhook,
} from './store.js';

export type WebhookDeps = Pick<AppDeps, 'config' | 'encryptor' | 'state' | 'wakeWorker'>;

/** After a rotation the previous secret keeps signing for this long. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

const webhookNotFound = () => notFound('Webhook');
const deliveryNotFound = () => notFound('Webhook delivery');

/** 400 at `url` unless it passes the SSRF rules now (resolved, every address checked). */
async function assertUrl(deps: WebhookDeps, url: string): Promise<void> {
  const target = await resolveTarget(url, {
    allowPrivate: deps.config.webhooks.allowPrivate,
    resolver: deps.state.webhooks!.resolver,
  });
  if (!target.ok) throw validationError([{ path: 'url', message: target.message }], `url ${target.message}`);
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];

export async function createWebhook(ctx: ServiceCtx, deps: WebhookDeps, input: CreateWebhookInput) {
  await assertUrl(deps, input.url);
  const secret = newSigningSecret();
  const row = await ctx.db.transaction(async (tx) => {
    const created = await insertWebhook(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      url: input.url,
      description: input.description,
      events: unique(input.events),
      enabled: input.enabled,
      secretEncrypted: deps.encryptor.encrypt(secret),
      createdBy: ctx.actorId,
    });
    await audit(ctx, tx, {
      action: 'WEBHOOK_CREATED',
      entityType: 'webhook',
      entityId: created.id,
      metadata: { url: created.url, events: created.events, enabled: created.enabled },
    });
    return created;
  });
  forgetSubscriptions(deps);
  return { ...row, secret };
}

export const listWebhooks = (ctx: ServiceCtx, page: PageRequest) =>
  listWebhooksPage(ctx.db, ctx.tenantId, page);

export async function getWebhook(ctx: ServiceCtx, id: string) {
  if (!isUuid(id)) throw webhookNotFound();
  const row = await findWebhook(ctx.db, ctx.tenantId, id);
  if (!row) throw webhookNotFound();
  return row;
}

/** PATCH: a new url is checked again; enabling clears why the service disabled it; disabling fails what is pending. */
export async function updateWebhookById(
  ctx: ServiceCtx,
  deps: WebhookDeps,
  id: string,
  input: UpdateWebhookInput,
) {
  if (!isUuid(id)) throw webhookNotFound();
  if (input.url !== undefined) await assertUrl(deps, input.url);
  const row = await ctx.db.transaction(async (tx) => {
    const before = await findWebhook(tx, ctx.tenantId, id);
    if (!before) throw webhookNotFound();
    const changes = {
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: unique(input.events) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.enabled === true ? { disabledReason: null } : {}),
    };
    const updated = (await updateWebhook(tx, ctx.tenantId, id, changes, ctx.now))!;
    if (before.enabled && input.enabled === false)
      await failPendingDeliveries(tx, id, 'endpoint disabled', ctx.now);
    await audit(ctx, tx, {
      action: 'WEBHOOK_UPDATED',
      entityType: 'webhook',
      entityId: id,
      metadata: { changes: Object.keys(changes) },
    });
    return updated;
  });
  forgetSubscriptions(deps);
  return row;
}

export async function deleteWebhookById(ctx: ServiceCtx, deps: WebhookDeps, id: string) {
  if (!isUuid(id)) throw webhookNotFound();
  await ctx.db.transaction(async (tx) => {
    const row = await deleteWebhook(tx, ctx.tenantId, id);
    if (!row) throw webhookNotFound();
    await audit(ctx, tx, {
      action: 'WEBHOOK_DELETED',
      entityType: 'webhook',
      entityId: id,
      metadata: { url: row.url },
    });
  });
  forgetSubscriptions(deps);
}

/** A new secret; the current one keeps signing (beside it) for 24 hours. */
export async function rotateSecret(ctx: ServiceCtx, deps: WebhookDeps, id: string) {
  if (!isUuid(id)) throw webhookNotFound();
  const secret = newSigningSecret();
  const previousSecretExpiresAt = new Date(ctx.now.getTime() + ROTATION_GRACE_MS);
  await ctx.db.transaction(async (tx) => {
    const current = await findWebhookSecrets(tx, ctx.tenantId, id);
    if (!current) throw webhookNotFound();
    await updateWebhook(
      tx,
      ctx.tenantId,
      id,
      {
        secretEncrypted: deps.encryptor.encrypt(secret),
        previousSecretEncrypted: current.secretEncrypted,
        previousSecretExpiresAt,
      },
      ctx.now,
    );
    await audit(ctx, tx, {
      action: 'WEBHOOK_SECRET_ROTATED',
      entityType: 'webhook',
      entityId: id,
      metadata: { previousSecretExpiresAt: previousSecretExpiresAt.toISOString() },
    });
  });
  return { secret, previousSecretExpiresAt };
}

export async function listDeliveries(
  ctx: ServiceCtx,
  id: string,
  query: PageRequest & { status?: 'pending' | 'delivered' | 'failed' | undefined },
) {
  await getWebhook(ctx, id);
  return listDeliveriesPage(ctx.db, ctx.tenantId, id, query, query.status);
}

/** Sends a delivery's message again, as a new delivery with the same `webhook-id`. */
export async function replayDelivery(ctx: ServiceCtx, deps: WebhookDeps, id: string, deliveryId: string) {
  if (!isUuid(id) || !isUuid(deliveryId)) throw deliveryNotFound();
  const row = await ctx.db.transaction(async (tx) => {
    const original = await findDelivery(tx, ctx.tenantId, id, deliveryId);
    if (!original) throw deliveryNotFound();
    const replay = await insertDelivery(
      tx,
      {
        id: newId(),
        tenantId: ctx.tenantId,
        webhookId: id,
        messageId: original.messageId,
        eventType: original.eventType,
        payload: original.payload,
      },
      ctx.now,
    );
    await audit(ctx, tx, {
      action: 'WEBHOOK_DELIVERY_REPLAYED',
      entityType: 'webhook',
      entityId: id,
      metadata: { deliveryId, replayId: replay.id, messageId: original.messageId },
    });
    return replay;
  });
  deps.wakeWorker('webhook-deliveries');
  return row;
}

/** Queues a `webhook.test` message to this endpoint (whatever it subscribes to). */
export async function sendTestEvent(ctx: ServiceCtx, deps: WebhookDeps, id: string) {
  const hook = await getWebhook(ctx, id);
  const row = await insertDelivery(
    ctx.db,
    {
      id: newId(),
      tenantId: ctx.tenantId,
      webhookId: hook.id,
      messageId: newMessageId(),
      eventType: TEST_EVENT_TYPE,
      payload: payloadOf(TEST_EVENT_TYPE, ctx.now, {
        webhookId: hook.id,
        message: 'A test event sent from the dashboard.',
      }),
    },
    ctx.now,
  );
  deps.wakeWorker('webhook-deliveries');
  return row;
}
