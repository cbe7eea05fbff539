import type { Executor } from '../../db/client.js';
import type { AppDeps } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import type { EffectContext, MemoKey } from '../events/index.js';
import type { WebhookEventType } from './engine/event-types.js';
import { enqueueDeliveries, listSubscriptions } from './store.js';

/**
 * What other modules call to emit webhook events: one outbox row per subscribed endpoint,
 * written on the transaction given — the one of the change (a flow published) or of the
 * processed events — so the message exists exactly when the change committed.
 */
export interface WebhookEvent {
  tenantId: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  /** When it happened (default: now). */
  timestamp?: Date;
}

/** The body of a delivery, as signed and sent: `{ type, timestamp, data }`. */
export const payloadOf = (type: string, timestamp: Date, data: Record<string, unknown>): string =>
  JSON.stringify({ type, timestamp: timestamp.toISOString(), data });

/** A fresh message id (`webhook-id`): the same on every attempt of the message and on every endpoint. */
export const newMessageId = (): string => `msg_${newId()}`;

/** How long the event effects trust the subscriptions they read (other instances' changes are seen within it). */
export const SUBSCRIPTIONS_TTL_MS = 1_000;

/**
 * The event types each tenant's enabled endpoints subscribe to, kept for a second by the event
 * effects (`EffectContext.memo`): a chunk whose tenants subscribe to nothing it carries costs no
 * query. A change through this instance's API drops it at once (`forgetSubscriptions`).
 */
export class SubscriptionCache {
  private readonly entries = new Map<string, { types: Set<string>; at: number }>();

  async typesOf(tx: Executor, tenantIds: string[], nowMs: number): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    const missing: string[] = [];
    for (const id of new Set(tenantIds)) {
      const hit = this.entries.get(id);
      if (hit && nowMs - hit.at < SUBSCRIPTIONS_TTL_MS) out.set(id, hit.types);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const id of missing) out.set(id, new Set());
      for (const row of await listSubscriptions(tx, missing))
        for (const t of row.events) out.get(row.tenantId)!.add(t);
      if (this.entries.size > 50_000) this.entries.clear();
      for (const id of missing) this.entries.set(id, { types: out.get(id)!, at: nowMs });
    }
    return out;
  }
}

export const SUBSCRIPTIONS: MemoKey<SubscriptionCache> = { create: () => new SubscriptionCache() };

/** Drops this app's cached subscriptions (after an endpoint changed). */
export function forgetSubscriptions(deps: Pick<AppDeps, 'state'>): void {
  deps.state.events?.memos.delete(SUBSCRIPTIONS as MemoKey<unknown>);
}

/**
 * The tenants among `tenantIds` with an enabled endpoint subscribed to `type`, from the event
 * effects' cached subscriptions: an effect asks before computing an event that costs a query.
 */
export async function subscribedTenants(
  tx: Executor,
  tenantIds: string[],
  type: WebhookEventType,
  effects: EffectContext,
): Promise<Set<string>> {
  const types = await effects.memo(SUBSCRIPTIONS).typesOf(tx, tenantIds, Date.now());
  return new Set(tenantIds.filter((id) => types.get(id)?.has(type)));
}

/**
 * Writes the outbox rows of these events on `tx`; returns how many deliveries. With the event
 * effects' context, events of tenants with no endpoint subscribed to their type are dropped
 * from the cached subscriptions, without a query.
 */
export async function emitWebhookEvents(
  tx: Executor,
  events: WebhookEvent[],
  opts: { now: Date; effects?: EffectContext },
): Promise<number> {
  let wanted = events;
  if (opts.effects && events.length > 0) {
    const types = await opts.effects.memo(SUBSCRIPTIONS).typesOf(
      tx,
      events.map((e) => e.tenantId),
      Date.now(),
    );
    wanted = events.filter((e) => types.get(e.tenantId)?.has(e.type));
  }
  if (wanted.length === 0) return 0;
  return enqueueDeliveries(
    tx,
    wanted.map((e) => ({
      tenantId: e.tenantId,
      messageId: newMessageId(),
      type: e.type,
      payload: payloadOf(e.type, e.timestamp ?? opts.now, e.data),
    })),
    opts.now,
  );
}
