import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { eventBatches } from '../../db/schema/index.js';
import { decodeBatchEvents, decodeEvents } from './decode.js';
import type { EventEffect } from './effect.js';
import { EventHandoff, type HandedBatch } from './handoff.js';
import { processPendingEvents } from './processor.js';
import { eventsState } from './state.js';
import { EVENT_TYPES } from './types.js';
import { storedBody } from './writer.js';

const handed = (id: number, events: number): HandedBatch => ({
  id: String(id),
  tenantId: 't',
  correlationId: 'c',
  receivedAt: new Date(0),
  source: 'sdk',
  events: Array.from({ length: events }, () => ({ type: 'CLICK' })),
});

describe('EventHandoff', () => {
  it('takes batches in commit order, within the event and batch bounds (one oversized batch alone), and loses none', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 80 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 10 }),
        (sizes, maxEvents, maxBatches) => {
          const q = new EventHandoff(1_000_000);
          for (const [i, n] of sizes.entries()) q.push(handed(i, n));
          const seen: string[] = [];
          for (;;) {
            const chunk = q.take(maxEvents, maxBatches);
            if (chunk.length === 0) break;
            const events = chunk.reduce((n, b) => n + b.events.length, 0);
            expect(chunk.length).toBeLessThanOrEqual(maxBatches);
            if (chunk.length > 1) expect(events).toBeLessThanOrEqual(maxEvents);
            seen.push(...chunk.map((b) => b.id));
          }
          expect(seen).toEqual(sizes.map((_, i) => String(i)));
          expect(q.size).toBe(0);
          expect(q.overflowed).toBe(false);
        },
      ),
    );
  });

  it('holds at most its bound of events: what does not fit is left to the log, and flagged', () => {
    const q = new EventHandoff(100);
    q.push(handed(1, 60));
    q.push(handed(2, 50));
    expect(q.overflowed).toBe(true);
    q.push(handed(3, 40));
    expect(q.queuedIds()).toEqual(['1', '3']);
    q.take(1000, 10);
    q.push(handed(4, 100));
    expect(q.queuedIds()).toEqual(['4']);
  });

  it('clear() forgets the queue and flags the log as holding batches the queue does not', () => {
    const q = new EventHandoff(100);
    q.clear();
    expect(q.overflowed).toBe(false);
    q.push(handed(1, 10));
    q.clear();
    expect(q.size).toBe(0);
    expect(q.overflowed).toBe(true);
  });
});

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenant(t);
  const res = await t.inject({
    method: 'POST',
    url: '/api/tenants/api-keys',
    headers: tenant.owner.headers,
    payload: { name: 'sdk' },
  });
  key = res.json().data.key;
});
afterAll(() => t.close());

const post = (events: unknown) =>
  t.inject({ method: 'POST', url: '/api/sdk/events', headers: { 'x-api-key': key }, payload: { events } });

/** An effect collecting every processed event's name. */
function collector() {
  const names: (string | undefined)[] = [];
  const effect: EventEffect = {
    name: 'collect',
    async apply(_tx, batches) {
      for (const b of batches) for (const e of b.events) names.push(e.name);
    },
  };
  return { names, effect };
}

const overwriteStoredBody = (correlationId: string) =>
  t.deps.database.db
    .update(eventBatches)
    .set({ events: JSON.stringify({ events: [{ type: 'CUSTOM', name: 'from-the-log' }] }), eventsBr: null })
    .where(eq(eventBatches.correlationId, correlationId));

describe('in-memory hand-over to processing', () => {
  it('processes a committed batch from memory, without reading its stored body back', async () => {
    await processPendingEvents(t.deps, []);
    const res = await post([{ type: 'CUSTOM', name: 'from-memory' }]);
    expect(res.statusCode).toBe(202);
    // The stored row says otherwise: only a read-back would see it.
    await overwriteStoredBody(res.json().data.correlationId);
    const { names, effect } = collector();
    await processPendingEvents(t.deps, [effect]);
    expect(names).toEqual(['from-memory']);
    const [row] = await t.deps.database.db
      .select({ processedAt: eventBatches.processedAt })
      .from(eventBatches)
      .where(eq(eventBatches.correlationId, res.json().data.correlationId));
    expect(row?.processedAt).toBeInstanceOf(Date);
  });

  it('reads the log back for what the queue does not hold (a restart, another instance)', async () => {
    await processPendingEvents(t.deps, []);
    const res = await post([{ type: 'CUSTOM', name: 'from-memory' }]);
    await overwriteStoredBody(res.json().data.correlationId);
    eventsState(t.deps).handoff!.clear();
    const { names, effect } = collector();
    await processPendingEvents(t.deps, [effect]);
    expect(names).toEqual(['from-the-log']);
  });

  it('skips a handed batch that another processor has processed from the log meanwhile', async () => {
    await processPendingEvents(t.deps, []);
    await post([{ type: 'CUSTOM', name: 'once' }]);
    const second = await createTestApp({ db: t.db });
    try {
      const first = collector();
      const other = collector();
      // The second instance has nothing in memory: it scans the log and takes the batch.
      await processPendingEvents(second.deps, [other.effect]);
      await processPendingEvents(t.deps, [first.effect]);
      expect(other.names).toEqual(['once']);
      expect(first.names).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('leaves a batch queued in memory to the in-memory path when it scans the log', async () => {
    await processPendingEvents(t.deps, []);
    await post([{ type: 'CUSTOM', name: 'a' }]);
    const res = await post([{ type: 'CUSTOM', name: 'b' }]);
    await overwriteStoredBody(res.json().data.correlationId);
    const handoff = eventsState(t.deps).handoff!;
    const [, b] = handoff.take(1000, 10);
    const { names, effect } = collector();
    // While the scan applies batch a, batch b is handed over (as a commit during the scan would).
    const handOver: EventEffect = {
      name: 'hand over b',
      async apply() {
        if (handoff.size === 0) handoff.push(b!);
      },
    };
    await processPendingEvents(t.deps, [handOver, effect], { maxBatches: 1 });
    // The scan's next claim left b alone; the next run takes it from memory.
    expect(names).toEqual(['a']);
    await processPendingEvents(t.deps, [effect], { maxBatches: 1 });
    expect(names).toEqual(['a', 'b']);
  });

  it('decodes the handed events exactly as the stored body', async () => {
    await processPendingEvents(t.deps, []);
    const event = fc.record(
      {
        id: fc.uuid().map((u) => u.toUpperCase()),
        type: fc.constantFrom(...EVENT_TYPES.filter((x) => x !== 'CUSTOM')),
        name: fc.string({ minLength: 1, maxLength: 10 }),
        userId: fc.string({ minLength: 1, maxLength: 10 }),
        anonymousId: fc.string({ minLength: 1, maxLength: 10 }),
        url: fc.webUrl(),
        timestamp: fc
          .date({ min: new Date('1990-01-01'), max: new Date(Date.now() + 3_600_000), noInvalidDate: true })
          .map((d) => d.toISOString()),
        // Without prototype keys at any depth: the service refuses those with a 400 (json-body.ts).
        properties: fc
          .dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }))
          .filter((p) => !/"(?:__proto__|constructor)"/.test(JSON.stringify(p))),
      },
      { requiredKeys: ['type'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 8 }), async (events) => {
        const res = await post(events);
        expect(res.statusCode).toBe(202);
        const handoff = eventsState(t.deps).handoff!;
        const [batch] = handoff.take(10_000, 1);
        const [row] = await t.deps.database.db
          .select()
          .from(eventBatches)
          .where(eq(eventBatches.id, batch!.id));
        expect(decodeEvents(batch!, batch!.events)).toEqual(
          decodeBatchEvents(row!, storedBody(row!.events, row!.eventsBr)),
        );
        await t.deps.database.db
          .update(eventBatches)
          .set({ processedAt: sql`now()` })
          .where(eq(eventBatches.id, batch!.id));
      }),
      { numRuns: 25 },
    );
  });

  it('hands over nothing where this process does not process events (ROLE=web)', async () => {
    const web = await createTestApp({ db: t.db, config: { role: 'web' } });
    try {
      expect(eventsState(web.deps).handoff).toBeNull();
    } finally {
      await web.close();
    }
  });
});
