import { newId } from '../../platform/ids.js';
import type { StoredEvent } from './event-types.js';
import type { PendingBatch } from './event-writer.js';
import { MAX_FUTURE_SKEW_MS, type SdkEventInput } from './events-schema.js';

/**
 * Settles what the log stores for each event: an id (the client's, or a new one), and a UTC
 * timestamp — the client's, the receive time when absent, and the receive time when the
 * client's clock runs more than five minutes ahead.
 */
export function normalizeEvents(events: SdkEventInput[], receivedAtMs: number): StoredEvent[] {
  const receivedIso = new Date(receivedAtMs).toISOString();
  const out = new Array<StoredEvent>(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    let timestamp = receivedIso;
    if (e.timestamp !== undefined) {
      const ms = Date.parse(e.timestamp);
      timestamp = ms - receivedAtMs > MAX_FUTURE_SKEW_MS ? receivedIso : new Date(ms).toISOString();
    }
    const stored: StoredEvent = {
      id: e.id ?? newId(),
      clientId: e.id !== undefined,
      type: e.type,
      timestamp,
    };
    if (e.name !== undefined) stored.name = e.name;
    if (e.properties !== undefined) stored.properties = e.properties;
    if (e.userId !== undefined) stored.userId = e.userId;
    if (e.anonymousId !== undefined) stored.anonymousId = e.anonymousId;
    if (e.sessionId !== undefined) stored.sessionId = e.sessionId;
    if (e.url !== undefined) stored.url = e.url;
    if (e.metadata !== undefined) stored.metadata = e.metadata;
    out[i] = stored;
  }
  return out;
}

export function toPendingBatch(
  sdk: { tenantId: string; apiKeyId: string },
  correlationId: string,
  receivedAtMs: number,
  events: StoredEvent[],
): PendingBatch {
  return {
    id: newId(),
    tenantId: sdk.tenantId,
    correlationId,
    apiKeyId: sdk.apiKeyId,
    receivedAt: new Date(receivedAtMs),
    eventCount: events.length,
    payload: JSON.stringify(events),
  };
}
