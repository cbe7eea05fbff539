import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { eventBatches, eventDeadLetters } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { decodeBatchEvents } from './decode.js';
import type { EventEffect, ProcessedBatch } from './effect.js';
import { processPendingEvents } from './processor.js';
import { eventsAccepted } from './schema.js';
import { eventsState } from './state.js';
import { EVENT_TYPES, type StoredEvent } from './types.js';
import { storedBody } from './writer.js';

let t: TestApp;
let acme: TenantFixture;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  const res = await t.inject({
    method: 'POST',
    url: '/api/tenants/api-keys',
    headers: acme.owner.headers,
    payload: { name: 'sdk' },
  });
  key = res.json().data.key;
});
afterAll(() => t.close());

const post = (events: unknown, headers: Record<string, string> = { 'x-api-key': key }) =>
  t.inject({ method: 'POST', url: '/api/sdk/events', headers, payload: { events } });

async function storedBatch(correlationId: string) {
  const [row] = await t.deps.database.db
    .select()
    .from(eventBatches)
    .where(eq(eventBatches.correlationId, correlationId));
  return row ? { ...row, parsed: decodeBatchEvents(row, storedBody(row.events, row.eventsBr)) } : undefined;
}

/**
 * Forgets the batches this app handed to processing in memory, as a restarted process would
 * have: processing then reads them back from the log (its scan).
 */
const readBack = () => eventsState(t.deps).handoff?.clear();

/** An effect recording how many batches each processing transaction held. */
function chunkSizes() {
  const chunks: number[] = [];
  const effect: EventEffect = {
    name: 'chunk sizes',
    async apply(_tx, batches) {
      chunks.push(batches.length);
    },
  };
  return { chunks, effect };
}

/** Runs processing with a recording effect (plus whatever the test adds). */
async function processWith(...extra: EventEffect[]) {
  const seen: { batch: ProcessedBatch; event: StoredEvent }[] = [];
  const recorder: EventEffect = {
    name: 'recorder',
    async apply(_tx, batches) {
      for (const batch of batches) for (const event of batch.events) seen.push({ batch, event });
    },
  };
  await processPendingEvents(t.deps, [...extra, recorder]);
  return seen;
}

describe('POST /api/sdk/events', () => {
  it('answers 202 with accepted and correlationId only once the batch is stored', async () => {
    const res = await post([
      { type: 'PAGE_VIEW', url: 'https://app.example.com/home', properties: { title: 'Home' } },
    ]);
    expect(res.statusCode).toBe(202);
    // Written out by the handler, not by the schema's serializer: still exactly the schema's answer.
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(eventsAccepted.strict().parse(res.json())).toEqual(res.json());
    const { accepted, correlationId } = res.json().data;
    expect(accepted).toBe(1);
    expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-correlation-id']).toBe(correlationId);
    const row = await storedBatch(correlationId);
    expect(row).toMatchObject({ tenantId: acme.tenantId, eventCount: 1, processedAt: null });
    expect(row!.parsed[0]).toMatchObject({
      type: 'PAGE_VIEW',
      url: 'https://app.example.com/home',
      properties: { title: 'Home' },
    });
  });

  it('stores the body as sent: brotli-compressed on the embedded database, text on PostgreSQL', async () => {
    const events = Array.from({ length: 50 }, (_, i) => ({
      type: 'CUSTOM',
      name: `e-${i}`,
      properties: { i },
    }));
    const res = await post(events);
    const row = await storedBatch(res.json().data.correlationId);
    if (t.deps.database.kind === 'pglite') {
      expect(row!.events).toBeNull();
      expect(row!.eventsBr!.byteLength).toBeLessThan(JSON.stringify({ events }).length / 3);
    } else {
      expect(row!.eventsBr).toBeNull();
    }
    expect(JSON.parse(storedBody(row!.events, row!.eventsBr))).toEqual({ events });
  });

  it('accepts every event type of the spec', async () => {
    const events = EVENT_TYPES.map((type) => ({
      type,
      ...(type === 'CUSTOM' ? { name: 'plan_upgraded' } : {}),
    }));
    expect(events).toHaveLength(30);
    expect(EVENT_TYPES).toContain('TARGET_LOOKUP');
    const res = await post(events);
    expect(res.statusCode).toBe(202);
    expect(res.json().data.accepted).toBe(30);
  });

  it('refuses an unknown type, naming its path', async () => {
    const error = expectError(
      await post([{ type: 'PAGE_VIEW' }, { type: 'PAGE_VISIT' }]),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([{ path: 'events.1.type', message: expect.any(String) }]);
  });

  it('validates each field with events.N.field paths', async () => {
    const cases: [unknown, string][] = [
      [{ type: 'CUSTOM' }, 'events.0.name'],
      [{ type: 'CLICK', properties: 'x' }, 'events.0.properties'],
      [{ type: 'CLICK', metadata: [1] }, 'events.0.metadata'],
      [{ type: 'CLICK', properties: null }, 'events.0.properties'],
      [{ type: 'CLICK', metadata: 'desktop' }, 'events.0.metadata'],
      [{ type: 'CLICK', timestamp: 'yesterday' }, 'events.0.timestamp'],
      [{ type: 'CLICK', userId: 42 }, 'events.0.userId'],
      [{ type: 'CLICK', id: 'not-a-uuid' }, 'events.0.id'],
      [{ type: 'CLICK', url: 7 }, 'events.0.url'],
    ];
    for (const [event, path] of cases) {
      const error = expectError(await post([event]), 400, 'VALIDATION_ERROR');
      expect((error.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
    expectError(await post([]), 400, 'VALIDATION_ERROR');
    expectError(
      await t.inject({ method: 'POST', url: '/api/sdk/events', headers: { 'x-api-key': key }, payload: {} }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('keeps properties and metadata as sent, and refuses a __proto__ key in them', async () => {
    const properties = { nested: { deep: [1, { a: null }] }, '': 'empty key', n: 1.5 };
    const res = await post([{ type: 'CLICK', properties, metadata: { device: 'desktop' } }]);
    expect(res.statusCode).toBe(202);
    const batch = await storedBatch(res.json().data.correlationId);
    expect(batch?.parsed[0]).toMatchObject({ properties, metadata: { device: 'desktop' } });

    const poisoned = await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: '{"events":[{"type":"CLICK","properties":{"__proto__":{"admin":true}}}]}',
    });
    expect(poisoned.statusCode).toBe(400);
    expect(poisoned.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('accepts 500 events and refuses 501 at path events', async () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ type: 'CLICK' }));
    expect((await post(many(500))).json().data.accepted).toBe(500);
    const error = expectError(await post(many(501)), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'events', message: expect.any(String) }]);
  });

  it('defaults the timestamp to server time and clamps timestamps far in the future', async () => {
    const now = Date.parse('2026-06-01T12:00:00.000Z');
    t.clock.set(now);
    try {
      const res = await post([
        { type: 'CLICK' },
        { type: 'CLICK', timestamp: '2026-06-01T12:04:00+00:00' },
        { type: 'CLICK', timestamp: '2026-06-01T13:00:00Z' },
        { type: 'CLICK', timestamp: '2025-01-01T00:00:00.000Z' },
        { type: 'CLICK', timestamp: '0000-01-01T00:00:00Z' },
      ]);
      const row = await storedBatch(res.json().data.correlationId);
      expect(row!.parsed.map((e) => e.timestamp)).toEqual([
        '2026-06-01T12:00:00.000Z',
        '2026-06-01T12:04:00.000Z',
        '2026-06-01T12:00:00.000Z',
        '2025-01-01T00:00:00.000Z',
        '2026-06-01T12:00:00.000Z',
      ]);
      expect(row!.receivedAt.toISOString()).toBe('2026-06-01T12:00:00.000Z');
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('accepts a navigator.sendBeacon body: text/plain with _apiKey inside', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({
        _apiKey: key,
        events: [{ type: 'FLOW_DISMISSED', properties: { flowId: 'f' } }],
      }),
    });
    expect(res.statusCode).toBe(202);
    const row = await storedBatch(res.json().data.correlationId);
    expect(row!.tenantId).toBe(acme.tenantId);
    expect(storedBody(row!.events, row!.eventsBr)).not.toContain(key);
  });

  it('needs a valid API key', async () => {
    expectError(await post([{ type: 'CLICK' }], {}), 401, 'AUTH_FAILED');
    expectError(
      await post([{ type: 'CLICK' }], { authorization: `Bearer ${acme.owner.token}` }),
      401,
      'AUTH_FAILED',
    );
  });
});

describe('event processing', () => {
  it('processes every stored event once, with its correlationId, and marks batches processed', async () => {
    await processWith(); // settle earlier tests' batches
    const a = await post([{ type: 'CLICK' }, { type: 'PAGE_VIEW' }]);
    const b = await post([{ type: 'CUSTOM', name: 'x' }]);
    const seen = await processWith();
    expect(seen.map((s) => s.event.type).sort()).toEqual(['CLICK', 'CUSTOM', 'PAGE_VIEW']);
    expect(new Set(seen.map((s) => s.batch.correlationId))).toEqual(
      new Set([a.json().data.correlationId, b.json().data.correlationId]),
    );
    expect((await storedBatch(a.json().data.correlationId))!.processedAt).toBeInstanceOf(Date);
    expect(await processWith()).toEqual([]);
  });

  it('counts a retried batch with the same client ids once', async () => {
    await processWith();
    const events = [
      { id: newId(), type: 'CLICK' },
      { id: newId(), type: 'PAGE_VIEW' },
    ];
    expect((await post(events)).statusCode).toBe(202);
    expect((await post(events)).statusCode).toBe(202);
    const seen = await processWith();
    expect(seen.map((s) => s.event.id).sort()).toEqual(events.map((e) => e.id).sort());
    // and once more after the first pass already processed them
    await post(events);
    expect(await processWith()).toEqual([]);
  });

  it('keeps client ids per tenant: the same id in another tenant is another event', async () => {
    await processWith();
    const other = await createTenant(t);
    const res = await t.inject({
      method: 'POST',
      url: '/api/tenants/api-keys',
      headers: other.owner.headers,
      payload: { name: 'k' },
    });
    const id = newId();
    await post([{ id, type: 'CLICK' }]);
    await post([{ id, type: 'CLICK' }], { 'x-api-key': res.json().data.key });
    const seen = await processWith();
    expect(seen.map((s) => s.batch.tenantId).sort()).toEqual([acme.tenantId, other.tenantId].sort());
  });

  it('retries a failing batch, isolates it from the others, and sets it aside after 5 attempts', async () => {
    await processWith();
    const poison = await post([{ type: 'ERROR', properties: { message: 'poison' } }]);
    const healthy = await post([{ type: 'CLICK' }]);
    const failing: EventEffect = {
      name: 'failing',
      async apply(_tx, batches) {
        if (batches.some((b) => b.events.some((e) => e.properties?.message === 'poison')))
          throw new Error('boom');
      },
    };
    const first = await processWith(failing);
    expect(first.map((s) => s.batch.correlationId)).toEqual([healthy.json().data.correlationId]);
    for (let i = 0; i < 4; i++) await processWith(failing);
    const row = await storedBatch(poison.json().data.correlationId);
    expect(row).toMatchObject({ attempts: 5, lastError: 'boom' });
    expect(row!.processedAt).toBeInstanceOf(Date);
  });

  it('leaves a failed batch out of later chunks: it is retried alone, once a run', async () => {
    await processWith();
    const poison = await post([{ type: 'ERROR', properties: { message: 'poison' } }]);
    const calls: string[][] = [];
    const failing: EventEffect = {
      name: 'failing',
      async apply(_tx, batches) {
        calls.push(batches.map((b) => b.correlationId));
        if (batches.some((b) => b.events.some((e) => e.properties?.message === 'poison')))
          throw new Error('boom');
      },
    };
    await processWith(failing);
    const poisonId = poison.json().data.correlationId;
    expect(await storedBatch(poisonId)).toMatchObject({ attempts: 1, processedAt: null });

    calls.length = 0;
    const healthy = await post([{ type: 'CLICK' }]);
    await processWith(failing);
    expect(calls).toEqual([[poisonId], [healthy.json().data.correlationId]]);
    expect(await storedBatch(poisonId)).toMatchObject({ attempts: 2, processedAt: null });
  });

  it('carries its batch-size estimate from run to run (reading back from the log)', async () => {
    await processWith();
    const { chunks, effect } = chunkSizes();
    const opts = { maxBatches: 100, targetEvents: 20, sizing: { eventsPerBatch: 50 } };
    for (let i = 0; i < 30; i++) await post([{ type: 'CLICK' }]);
    readBack();
    await processPendingEvents(t.deps, [effect], opts);
    expect(chunks).toEqual([1, 20, 9]);
    expect(opts.sizing.eventsPerBatch).toBe(1);

    chunks.length = 0;
    for (let i = 0; i < 25; i++) await post([{ type: 'CLICK' }]);
    readBack();
    await processPendingEvents(t.deps, [effect], opts);
    expect(chunks).toEqual([20, 5]);
  });

  it('dead-letters single events through the effect context', async () => {
    await processWith();
    const res = await post([{ type: 'SURVEY_RESPONSE', properties: { surveyId: 'nope' } }]);
    await processWith({
      name: 'rejecting',
      async apply(_tx, batches, ctx) {
        for (const b of batches) for (const e of b.events) await ctx.deadLetter(b, e, 'survey not found');
      },
    });
    const rows = await t.deps.database.db
      .select()
      .from(eventDeadLetters)
      .where(eq(eventDeadLetters.correlationId, res.json().data.correlationId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tenantId: acme.tenantId, reason: 'survey not found' });
  });

  it('lets several processors run at once without processing a batch twice', async () => {
    await processWith();
    for (let i = 0; i < 20; i++) await post([{ type: 'CLICK', properties: { i } }]);
    const second = await createTestApp({ db: t.db });
    try {
      const seen: number[] = [];
      const effect: EventEffect = {
        name: 'collect',
        async apply(_tx, batches) {
          for (const b of batches) for (const e of b.events) seen.push(e.properties!.i as number);
        },
      };
      await Promise.all([
        processPendingEvents(t.deps, [effect], { maxBatches: 3 }),
        processPendingEvents(second.deps, [effect], { maxBatches: 3 }),
        processPendingEvents(t.deps, [effect], { maxBatches: 2 }),
      ]);
      expect(seen.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    } finally {
      await second.close();
    }
  });

  it('sizes each transaction by events: many small batches share one, large ones are split', async () => {
    await processWith();
    const { chunks, effect } = chunkSizes();
    const opts = { maxBatches: 100, targetEvents: 20 };
    for (let i = 0; i < 30; i++) await post([{ type: 'CLICK' }]);
    readBack();
    await processPendingEvents(t.deps, [effect], opts);
    // One batch first (50 events a batch assumed), then 20 one-event batches a transaction.
    expect(chunks).toEqual([1, 20, 9]);

    chunks.length = 0;
    const tenEvents = Array.from({ length: 10 }, () => ({ type: 'CLICK' }));
    for (let i = 0; i < 5; i++) await post(tenEvents);
    readBack();
    await processPendingEvents(t.deps, [effect], opts);
    expect(chunks).toEqual([1, 2, 2]);
  });

  it('sizes in-memory chunks by their exact event counts', async () => {
    await processWith();
    const { chunks, effect } = chunkSizes();
    const opts = { maxBatches: 100, targetEvents: 20 };
    for (let i = 0; i < 30; i++) await post([{ type: 'CLICK' }]);
    await processPendingEvents(t.deps, [effect], opts);
    expect(chunks).toEqual([20, 10]);

    chunks.length = 0;
    const tenEvents = Array.from({ length: 10 }, () => ({ type: 'CLICK' }));
    for (let i = 0; i < 5; i++) await post(tenEvents);
    // A batch larger than the target still goes, alone.
    await post(Array.from({ length: 30 }, () => ({ type: 'CLICK' })));
    await processPendingEvents(t.deps, [effect], { ...opts, maxBatches: 2 });
    expect(chunks).toEqual([2, 2, 1, 1]);
  });

  it('stops at a chunk that comes back short: what commits later waits for the next wake', async () => {
    await processWith();
    for (let i = 0; i < 3; i++) await post([{ type: 'CLICK' }]);
    readBack();
    const { chunks, effect } = chunkSizes();
    const transactions = vi.spyOn(t.deps.database.db, 'transaction');
    let asked = 0;
    try {
      await processPendingEvents(t.deps, [effect], {
        maxBatches: 10,
        ingestionBusy: () => {
          asked++;
          return true;
        },
      });
      // One transaction, no pause and no second claim: under load the next wake's chunk then
      // gathers everything committed meanwhile instead of a transaction per commit.
      expect(chunks).toEqual([3]);
      expect(transactions).toHaveBeenCalledTimes(1);
      expect(asked).toBe(0);
    } finally {
      transactions.mockRestore();
    }
  });

  it('marks the hot path busy on each commit, and processing then pauses as long as each chunk took', async () => {
    await processWith();
    const before = Date.now();
    for (let i = 0; i < 3; i++) await post([{ type: 'CLICK' }]);
    expect(eventsState(t.deps).hotPathActiveAt).toBeGreaterThanOrEqual(before);

    const slow: EventEffect = {
      name: 'slow',
      apply: () => new Promise((r) => setTimeout(r, 40)),
    };
    let asked = 0;
    const started = Date.now();
    await processPendingEvents(t.deps, [slow], {
      maxBatches: 1,
      ingestionBusy: () => {
        asked++;
        return true;
      },
    });
    // Three chunks of ≥ 40 ms, each followed by a pause as long.
    expect(asked).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(6 * 40 - 5);
  });
});
