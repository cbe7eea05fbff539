import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { Executor } from '../../db/client.js';
import { decodeBatchEvents } from './decode.js';
import {
  deleteBatches,
  deleteDeadLettersOf,
  findBatchBodiesNaming,
  findDeadLettersOf,
  rewriteBatchBody,
  type StoredBatchBody,
} from './store.js';
import type { StoredEvent } from './types.js';

/**
 * An end user's events in the log (for modules/privacy): those sent with its `userId`, and
 * those sent with one of its anonymous ids and no userId (before identify). An event with the
 * anonymous id but another userId belongs to that other user and is kept.
 */
export interface EventOwner {
  userId: string;
  anonymousIds: readonly string[];
}

const PAGE = 200;

type RawEvent = { userId?: unknown; anonymousId?: unknown };

const ownedBy = (owner: EventOwner) => {
  const anonymous = new Set(owner.anonymousIds);
  return (e: RawEvent): boolean =>
    e.userId === owner.userId ||
    ((e.userId === undefined || e.userId === null) &&
      typeof e.anonymousId === 'string' &&
      anonymous.has(e.anonymousId));
};

const textOf = (row: StoredBatchBody): string => row.events ?? brotliDecompressSync(row.eventsBr!).toString();

/**
 * The texts a text body is searched for: the ids themselves when a client cannot have written
 * them otherwise in JSON (printable ASCII without a quote, a backslash or a slash, which may be
 * escaped); null, every body is read, when one could be.
 */
const needlesOf = (owner: EventOwner): string[] | null => {
  const ids = [owner.userId, ...owner.anonymousIds];
  return ids.every((v) => /^[\x20-\x7e]+$/.test(v) && !/["\\/]/.test(v)) ? ids : null;
};

/** Every batch of the tenant that may hold the owner's events, page after page. */
async function* batchesNaming(exec: Executor, tenantId: string, owner: EventOwner) {
  const needles = needlesOf(owner);
  let after: string | null = null;
  for (;;) {
    const rows = await findBatchBodiesNaming(exec, tenantId, needles, after, PAGE);
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Removes the owner's events from the tenant's log on `tx`: each batch holding some is rewritten
 * without them (in the column that held its body), a batch left empty is deleted; so are the
 * owner's dead letters. Returns the counts.
 */
export async function eraseEventsOf(
  tx: Executor,
  tenantId: string,
  owner: EventOwner,
): Promise<{ events: number; batches: number; deadLetters: number }> {
  const owned = ownedBy(owner);
  let events = 0;
  let batches = 0;
  const emptied: string[] = [];
  for await (const row of batchesNaming(tx, tenantId, owner)) {
    const parsed = JSON.parse(textOf(row)) as RawEvent[] | { events: RawEvent[] };
    const list = Array.isArray(parsed) ? parsed : parsed.events;
    const kept = list.filter((e) => !owned(e));
    if (kept.length === list.length) continue;
    events += list.length - kept.length;
    batches++;
    if (kept.length === 0) {
      emptied.push(row.id);
      continue;
    }
    const text = JSON.stringify(Array.isArray(parsed) ? kept : { ...parsed, events: kept });
    await rewriteBatchBody(
      tx,
      row.id,
      row.events !== null
        ? { events: text, eventsBr: null }
        : {
            events: null,
            eventsBr: brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
          },
      kept.length,
    );
  }
  await deleteBatches(tx, emptied);
  const deadLetters = await deleteDeadLettersOf(tx, tenantId, owner.userId, owner.anonymousIds);
  return { events, batches, deadLetters };
}

/** The owner's events in the tenant's log (as processing decodes them) and its dead letters. */
export async function exportEventsOf(exec: Executor, tenantId: string, owner: EventOwner) {
  const owned = ownedBy(owner);
  const events: StoredEvent[] = [];
  for await (const row of batchesNaming(exec, tenantId, owner)) {
    for (const e of decodeBatchEvents(row, textOf(row))) if (owned(e)) events.push(e);
  }
  const deadLetters = await findDeadLettersOf(exec, tenantId, owner.userId, owner.anonymousIds);
  return { events, deadLetters };
}
