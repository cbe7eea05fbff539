import { newId } from '../../platform/ids.js';
import { DERIVED_ID_POSITIONS, MAX_FUTURE_SKEW_MS } from './schema.js';
import type { StoredEvent } from './types.js';
import type { PendingBatch } from './writer.js';

/**
 * The event log stores a client request's body as received — it was validated before the 202 —
 * so the hot path does no per-event work. Decoding settles, deterministically, what each event
 * is: its id (the client's, or one derived from the batch id and the event's position, the
 * same on every replay) and its UTC timestamp (the client's; the receive time when absent,
 * before 2000 or more than five minutes ahead of it). Only the schema's fields are read.
 */
export function toPendingBatch(
  sdk: { tenantId: string; apiKeyId: string },
  correlationId: string,
  receivedAtMs: number,
  eventCount: number,
  payload: string,
  source: 'sdk' | 'server' = 'sdk',
): PendingBatch {
  return {
    id: newId(),
    tenantId: sdk.tenantId,
    correlationId,
    apiKeyId: sdk.apiKeyId,
    receivedAt: new Date(receivedAtMs),
    eventCount,
    payload,
    source,
  };
}

/** A stored event as the client sent it (validated before it was stored). */
type RawEvent = Omit<StoredEvent, 'clientId' | 'serverGenerated' | 'id' | 'timestamp'> & {
  id?: string;
  timestamp?: string;
};

/** The events of a stored batch, as processing sees them. */
export function decodeBatchEvents(
  batch: { id: string; receivedAt: Date; source: 'sdk' | 'server' },
  payload: string,
): StoredEvent[] {
  const parsed = JSON.parse(payload) as RawEvent[] | { events: RawEvent[] };
  return decodeEvents(batch, Array.isArray(parsed) ? parsed : parsed.events);
}

/**
 * The events of a batch, from the stored body once parsed or from the request's validated events
 * handed over in memory (handoff.ts): the same fields are read either way, so both give the
 * same StoredEvents.
 */
export function decodeEvents(
  batch: { id: string; receivedAt: Date; source: 'sdk' | 'server' },
  events: readonly unknown[],
): StoredEvent[] {
  // Events the service records itself are stored already settled.
  if (batch.source === 'server')
    return (events as readonly StoredEvent[]).map((e) => ({ ...e, serverGenerated: true }));
  const list = events as readonly RawEvent[];
  const receivedMs = batch.receivedAt.getTime();
  let receivedIso: string | null = null;
  // The latest timestamp kept as sent, in the canonical form.
  const latestIso = new Date(receivedMs + MAX_FUTURE_SKEW_MS).toISOString();
  const ids = derivedIds(batch.id);
  const decoded = new Array<StoredEvent>(list.length);
  for (let index = 0; index < list.length; index++) {
    const raw = list[index]!;
    const clientId = typeof raw.id === 'string';
    const settled = settleTimestamp(raw.timestamp, receivedMs, latestIso);
    const event: StoredEvent = {
      id: clientId ? raw.id!.toLowerCase() : ids(index),
      clientId,
      type: raw.type,
      // biome-ignore lint/suspicious/noAssignInExpressions: the receive time is formatted once, when first needed
      timestamp: settled ?? (receivedIso ??= batch.receivedAt.toISOString()),
    };
    // Field by field (not a loop over names): named stores are what keeps decoding cheap.
    if (raw.name !== undefined) event.name = raw.name;
    if (raw.properties !== undefined) event.properties = raw.properties;
    if (raw.userId !== undefined) event.userId = raw.userId;
    if (raw.anonymousId !== undefined) event.anonymousId = raw.anonymousId;
    if (raw.sessionId !== undefined) event.sessionId = raw.sessionId;
    if (raw.url !== undefined) event.url = raw.url;
    if (raw.metadata !== undefined) event.metadata = raw.metadata;
    decoded[index] = event;
  }
  return decoded;
}

/** Before this, a client clock is simply wrong (and PostgreSQL has no year 0). */
const EARLIEST_MS = Date.UTC(2000, 0, 1);

const EARLIEST_ISO = new Date(EARLIEST_MS).toISOString();

/** The UTC day of EARLIEST_MS (`2000-01-01`): no processed event has an earlier day. */
export const EARLIEST_EVENT_DAY = new Date(EARLIEST_MS).toISOString().slice(0, 10);

/** `toISOString()`'s own form: such a timestamp is kept as sent (formatting it again costs more than parsing). */
const CANONICAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The event's timestamp in UTC, or null where the receive time stands in for it. */
function settleTimestamp(value: unknown, receivedMs: number, latestIso: string): string | null {
  if (typeof value !== 'string') return null;
  // Canonical strings compare as the instants they name: most are settled without parsing a date.
  if (value.length === 24 && value >= EARLIEST_ISO && value <= latestIso && CANONICAL_UTC.test(value))
    return value;
  const ms = Date.parse(value);
  if (!(ms >= EARLIEST_MS) || ms - receivedMs > MAX_FUTURE_SKEW_MS) return null;
  // The schema admitted only real dates and times (no 24:00, no February 30th), which in this
  // form are already what toISOString would give.
  return CANONICAL_UTC.test(value) ? value : new Date(ms).toISOString();
}

/** A uuid unique to (batch, position): the batch's uuid with the position folded into its last 12 bits. */
export function derivedEventId(batchId: string, index: number): string {
  return derivedIds(batchId)(index);
}

/** derivedEventId of one batch, its uuid split once for all its positions. */
function derivedIds(batchId: string): (index: number) => string {
  const head = batchId.slice(0, -3);
  const tail = Number.parseInt(batchId.slice(-3), 16);
  return (index) => {
    // Positions beyond the 12 bits would repeat ids; requests are capped well below (schema.ts).
    if (!(index >= 0 && index < DERIVED_ID_POSITIONS))
      throw new RangeError(`event position ${index} out of range`);
    const t = tail ^ index;
    return head + (t < 0x10 ? '00' : t < 0x100 ? '0' : '') + t.toString(16);
  };
}
