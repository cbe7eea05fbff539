import { newId } from '../../platform/ids.js';
import type { StoredEvent } from './types.js';
import type { EventWriter, PendingBatch } from './writer.js';

/**
 * Events the server records itself (a session start, an IDENTIFY), written through the shared
 * group-commit writer. Events of one tenant that arrive while their batch is still waiting for
 * the writer join that batch: one event_batches row (one correlationId) then holds many events,
 * so storing and later processing them is set-based too. A batch closes the moment the writer
 * reads its payload; later events open the next one.
 */
export interface RecordedEvent {
  /** The stored batch's correlationId (shared by the events that joined it). */
  correlationId: string;
  /** Resolves once the batch is committed. */
  stored: Promise<void>;
}

interface OpenBatch {
  events: string[];
  /** The same events as objects, for processing's in-memory hand-over. */
  objects: StoredEvent[];
  closed: boolean;
  correlationId: string;
  stored: Promise<void>;
}

/** An event the service records itself: a fresh id, the given time, and its fields. */
export function serverEvent(
  type: StoredEvent['type'],
  nowMs: number,
  fields: Omit<StoredEvent, 'id' | 'clientId' | 'type' | 'timestamp'>,
): StoredEvent {
  const event: StoredEvent = { id: newId(), clientId: false, type, timestamp: new Date(nowMs).toISOString() };
  for (const [k, v] of Object.entries(fields))
    if (v !== undefined) (event as unknown as Record<string, unknown>)[k] = v;
  return event;
}

const keyOf = (sdk: { tenantId: string; apiKeyId: string }) => `${sdk.tenantId}:${sdk.apiKeyId}`;

export function createEventRecorder(writer: EventWriter) {
  const open = new Map<string, OpenBatch>();

  function openBatch(
    sdk: { tenantId: string; apiKeyId: string },
    first: StoredEvent,
    json: string,
    receivedAt: Date,
  ): OpenBatch {
    const events: string[] = [json];
    const objects: StoredEvent[] = [first];
    const key = keyOf(sdk);
    const entry: OpenBatch = {
      events,
      objects,
      closed: false,
      correlationId: newId(),
      stored: Promise.resolve(),
    };
    const close = () => {
      if (!entry.closed) {
        entry.closed = true;
        if (open.get(key) === entry) open.delete(key);
      }
    };
    const batch: PendingBatch = {
      id: newId(),
      tenantId: sdk.tenantId,
      correlationId: entry.correlationId,
      apiKeyId: sdk.apiKeyId,
      receivedAt,
      get eventCount() {
        close();
        return events.length;
      },
      get payload() {
        close();
        return `[${events.join(',')}]`;
      },
      get events() {
        close();
        return objects;
      },
      source: 'server',
    };
    entry.stored = writer.write(batch);
    // A failed write is reported to every caller through `stored`; never unhandled here.
    entry.stored.catch(() => {});
    return entry;
  }

  return {
    record(sdk: { tenantId: string; apiKeyId: string }, event: StoredEvent, receivedAt: Date): RecordedEvent {
      const json = JSON.stringify(event);
      const key = keyOf(sdk);
      const entry = open.get(key);
      if (entry && !entry.closed) {
        entry.events.push(json);
        entry.objects.push(event);
        return { correlationId: entry.correlationId, stored: entry.stored };
      }
      const fresh = openBatch(sdk, event, json, receivedAt);
      // The writer may have taken it at once (it pumps immediately when idle): then it stays closed.
      if (!fresh.closed) open.set(key, fresh);
      return { correlationId: fresh.correlationId, stored: fresh.stored };
    },
  };
}
export type EventRecorder = ReturnType<typeof createEventRecorder>;
