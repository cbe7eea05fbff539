import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { apiKeyOf, sdkCall } from '../../../test/helpers/sdk.js';
import { endUserItemStates, endUsers, eventBatches } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { DEFAULT_FREQUENCY, frequencyOf, localeKeyOf } from '../delivery/cache.js';
import { createEventRecorder } from '../events/recorder.js';
import { throttledWake } from '../events/routes.js';
import type { StoredEvent } from '../events/types.js';
import type { EventWriter, PendingBatch } from '../events/writer.js';
import { itemStateOf } from './item-states.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const process = () => t.processEvents();

async function setup() {
  const tenant = await createTenant(t);
  const key = await apiKeyOf(t, tenant);
  const sdk = sdkCall(t, key);
  const send = async (events: Record<string, unknown>[]) => {
    const res = await sdk('POST', '/api/sdk/events', { events });
    expect(res.statusCode).toBe(202);
  };
  const byExternal = async (externalId: string) =>
    (
      await t.deps.database.db
        .select()
        .from(endUsers)
        .where(and(eq(endUsers.tenantId, tenant.tenantId), eq(endUsers.externalId, externalId)))
    )[0];
  const all = () => t.deps.database.db.select().from(endUsers).where(eq(endUsers.tenantId, tenant.tenantId));
  return { tenant, sdk, send, byExternal, all };
}

describe('end-user activity effect', () => {
  it('creates unknown users from their events and moves first/last seen outward only', async () => {
    const { send, byExternal } = await setup();
    await send([
      { type: 'PAGE_VIEW', userId: 'u-1', anonymousId: 'anon-1', timestamp: '2026-01-01T10:00:00Z' },
      { type: 'CLICK', userId: 'u-1', timestamp: '2026-01-01T12:00:00Z' },
      { type: 'CLICK', userId: 'u-1', timestamp: '2026-01-01T11:00:00Z' },
    ]);
    await process();
    expect(await byExternal('u-1')).toMatchObject({
      anonymousId: 'anon-1',
      traits: {},
      firstSeenAt: new Date('2026-01-01T10:00:00Z'),
      lastSeenAt: new Date('2026-01-01T12:00:00Z'),
    });
    await send([{ type: 'CLICK', userId: 'u-1', timestamp: '2026-01-01T11:30:00Z' }]);
    await process();
    expect(await byExternal('u-1')).toMatchObject({ lastSeenAt: new Date('2026-01-01T12:00:00Z') });
    await send([
      { type: 'CLICK', userId: 'u-1', timestamp: '2026-01-02T08:00:00Z' },
      { type: 'CLICK', userId: 'u-1', timestamp: '2025-12-31T08:00:00Z' },
    ]);
    await process();
    expect(await byExternal('u-1')).toMatchObject({
      firstSeenAt: new Date('2025-12-31T08:00:00Z'),
      lastSeenAt: new Date('2026-01-02T08:00:00Z'),
    });
  });

  it('keeps identify traits and never touches them', async () => {
    const { sdk, send, byExternal } = await setup();
    await sdk('POST', '/api/sdk/identify', { userId: 'u-2', traits: { plan: 'pro' } });
    await send([{ type: 'CLICK', userId: 'u-2' }]);
    await process();
    expect((await byExternal('u-2'))!.traits).toEqual({ plan: 'pro' });
  });

  it('tracks anonymous visitors by anonymousId, and resolves a linked anonymousId to its user', async () => {
    const { sdk, send, all, byExternal } = await setup();
    await send([
      { type: 'PAGE_VIEW', anonymousId: 'anon-1', timestamp: '2026-02-01T10:00:00Z' },
      { type: 'PAGE_VIEW', anonymousId: 'anon-1', timestamp: '2026-02-01T10:05:00Z' },
      { type: 'PAGE_VIEW' }, // nobody: nothing to track
    ]);
    await process();
    let rows = await all();
    expect(rows).toEqual([
      expect.objectContaining({
        externalId: null,
        anonymousId: 'anon-1',
        firstSeenAt: new Date('2026-02-01T10:00:00Z'),
        lastSeenAt: new Date('2026-02-01T10:05:00Z'),
      }),
    ]);
    await sdk('POST', '/api/sdk/identify', { userId: 'u-3', anonymousId: 'anon-1' });
    const later = Date.now() + 3_600_000;
    t.clock.set(later);
    try {
      await send([{ type: 'PAGE_VIEW', anonymousId: 'anon-1' }]);
      await process();
    } finally {
      t.clock.set(Date.now());
    }
    rows = await all();
    expect(rows).toHaveLength(1);
    expect(await byExternal('u-3')).toMatchObject({ lastSeenAt: new Date(later) });
  });

  it('records completed and dismissed items per user, keeping the first time', async () => {
    const { send, byExternal, tenant } = await setup();
    const flow = newId();
    const tip = newId();
    await send([
      {
        type: 'FLOW_COMPLETED',
        userId: 'u-4',
        properties: { flowId: flow },
        timestamp: '2026-03-01T10:00:00Z',
      },
      {
        type: 'FLOW_COMPLETED',
        userId: 'u-4',
        properties: { flowId: flow },
        timestamp: '2026-03-01T09:00:00Z',
      },
      {
        type: 'FLOW_DISMISSED',
        userId: 'u-4',
        properties: { contentId: tip },
        timestamp: '2026-03-01T11:00:00Z',
      },
      { type: 'FLOW_DISMISSED', userId: 'u-4', properties: { flowId: 'not-a-uuid' } },
      { type: 'FLOW_COMPLETED', properties: { flowId: flow } }, // nobody
    ]);
    await process();
    await send([
      {
        type: 'FLOW_COMPLETED',
        userId: 'u-4',
        properties: { flowId: flow },
        timestamp: '2026-04-01T00:00:00Z',
      },
    ]);
    await process();
    const user = await byExternal('u-4');
    const states = await t.deps.database.db
      .select()
      .from(endUserItemStates)
      .where(and(eq(endUserItemStates.tenantId, tenant.tenantId), eq(endUserItemStates.endUserId, user!.id)));
    expect(states).toHaveLength(2);
    expect(states.find((s) => s.itemId === flow)).toMatchObject({
      completedAt: new Date('2026-03-01T09:00:00Z'),
      dismissedAt: null,
    });
    expect(states.find((s) => s.itemId === tip)).toMatchObject({
      completedAt: null,
      dismissedAt: new Date('2026-03-01T11:00:00Z'),
    });
  });

  it('skips events of a tenant that no longer exists instead of failing the batch', async () => {
    const id = newId();
    const events: StoredEvent[] = [
      {
        id: newId(),
        clientId: false,
        type: 'FLOW_COMPLETED',
        timestamp: new Date().toISOString(),
        userId: 'ghost',
        properties: { flowId: newId() },
      },
      {
        id: newId(),
        clientId: false,
        type: 'CLICK',
        timestamp: new Date().toISOString(),
        anonymousId: 'ghost-anon',
      },
    ];
    await t.deps.database.db.insert(eventBatches).values({
      id,
      tenantId: newId(),
      correlationId: newId(),
      receivedAt: new Date(),
      eventCount: events.length,
      events: JSON.stringify(events),
    });
    await process();
    const [row] = await t.deps.database.db.select().from(eventBatches).where(eq(eventBatches.id, id));
    expect(row).toMatchObject({ attempts: 0, lastError: null, processedAt: expect.any(Date) });
  });
});

describe('frequency settings and item states of events', () => {
  it('reads settings.frequency with defaults false/false', () => {
    expect(frequencyOf({})).toEqual(DEFAULT_FREQUENCY);
    expect(frequencyOf(null)).toEqual({ repeatCompleted: false, repeatDismissed: false });
    expect(frequencyOf({ frequency: { repeatCompleted: true } })).toEqual({
      repeatCompleted: true,
      repeatDismissed: false,
    });
    expect(frequencyOf({ frequency: { repeatCompleted: 'yes', repeatDismissed: true } })).toEqual({
      repeatCompleted: false,
      repeatDismissed: true,
    });
    expect(frequencyOf({ frequency: 'always' })).toEqual(DEFAULT_FREQUENCY);
  });

  it('maps completion and dismissal events to their item', () => {
    const id = '0190a000-0000-7000-8000-00000000000A';
    const ev = (type: StoredEvent['type'], properties: Record<string, unknown>): StoredEvent => ({
      id: newId(),
      clientId: false,
      type,
      timestamp: new Date().toISOString(),
      properties,
    });
    const lower = id.toLowerCase();
    expect(itemStateOf(ev('FLOW_COMPLETED', { flowId: id }))).toEqual({ itemId: lower, state: 'completed' });
    expect(itemStateOf(ev('FLOW_DISMISSED', { flowId: id }))).toEqual({ itemId: lower, state: 'dismissed' });
    expect(itemStateOf(ev('FLOW_SKIPPED', { contentId: id }))).toEqual({ itemId: lower, state: 'dismissed' });
    expect(itemStateOf(ev('SURVEY_RESPONSE', { surveyId: id }))).toEqual({
      itemId: lower,
      state: 'completed',
    });
    expect(itemStateOf(ev('NPS_RESPONSE', { npsSurveyId: id }))).toEqual({
      itemId: lower,
      state: 'completed',
    });
    expect(itemStateOf(ev('NPS_RESPONSE', { surveyId: id }))).toEqual({ itemId: lower, state: 'completed' });
    expect(itemStateOf(ev('CONTENT_SUBMISSION_PERSISTED', { contentId: id }))).toEqual({
      itemId: lower,
      state: 'completed',
    });
    expect(itemStateOf(ev('FLOW_STARTED', { flowId: id }))).toBeNull();
    expect(itemStateOf(ev('FLOW_COMPLETED', { flowId: 'nope' }))).toBeNull();
    expect(itemStateOf(ev('FLOW_COMPLETED', {}))).toBeNull();
  });

  it('resolves a requested locale to its own code, its base language, or the default', () => {
    const snapshot = { localeCodes: new Set(['en', 'fr', 'pt-br']) };
    expect(localeKeyOf(snapshot, 'fr')).toBe('fr');
    expect(localeKeyOf(snapshot, 'FR-ca')).toBe('fr');
    expect(localeKeyOf(snapshot, 'pt_BR')).toBe('pt-br');
    expect(localeKeyOf(snapshot, 'pt')).toBe('');
    expect(localeKeyOf(snapshot, 'de')).toBe('');
    expect(localeKeyOf(snapshot, undefined)).toBe('');
  });
});

describe('processor wake and event recorder', () => {
  it('wakes the event processor at once at rest, then at most once per interval', async () => {
    let wakes = 0;
    const wake = throttledWake(() => wakes++, 40);
    wake();
    expect(wakes).toBe(1);
    wake();
    wake();
    expect(wakes).toBe(1);
    await new Promise((r) => setTimeout(r, 80));
    expect(wakes).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    wake();
    expect(wakes).toBe(3);
  });

  it('records events of one tenant and key into the batch still waiting for the writer', async () => {
    const written: PendingBatch[] = [];
    const payloads: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const writer = {
      async write(batch: PendingBatch) {
        written.push(batch);
        await gate; // the writer is busy: the batch waits
        payloads.push(batch.payload);
      },
      drain: async () => {},
    } as unknown as EventWriter;
    const recorder = createEventRecorder(writer);
    const sdk = { tenantId: newId(), apiKeyId: newId() };
    const other = { tenantId: newId(), apiKeyId: newId() };
    const ev = (n: number): StoredEvent => ({
      id: newId(),
      clientId: false,
      type: 'SDK_INIT',
      timestamp: new Date().toISOString(),
      properties: { n },
    });
    const a = recorder.record(sdk, ev(1), new Date());
    const b = recorder.record(sdk, ev(2), new Date());
    const c = recorder.record(other, ev(3), new Date());
    expect(b.correlationId).toBe(a.correlationId);
    expect(c.correlationId).not.toBe(a.correlationId);
    release();
    await Promise.all([a.stored, b.stored, c.stored]);
    expect(written).toHaveLength(2);
    expect(JSON.parse(payloads[0]!).map((e: StoredEvent) => e.properties!.n)).toEqual([1, 2]);
    // the batch closed when the writer read it: the next event opens another
    const d = recorder.record(sdk, ev(4), new Date());
    expect(d.correlationId).not.toBe(a.correlationId);
  });
});
