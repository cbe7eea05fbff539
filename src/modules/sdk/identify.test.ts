import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { apiKeyOf, publishedFlow, sdkCall } from '../../../test/helpers/sdk.js';
import { endUserItemStates, endUsers, eventBatches } from '../../db/schema/index.js';
import type { StoredEvent } from '../events/types.js';
import { storedBody } from '../events/writer.js';
import { MAX_TRAITS_BYTES } from './schemas.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function setup() {
  const tenant = await createTenant(t);
  const key = await apiKeyOf(t, tenant);
  const sdk = sdkCall(t, key);
  const identify = (body: Record<string, unknown>) => sdk('POST', '/api/sdk/identify', body);
  const session = async (body: Record<string, unknown>) => {
    const res = await sdk('POST', '/api/sdk/session', body);
    expect(res.statusCode).toBe(201);
    return res.json().data as { endUserId: string | null; flows: { id: string }[] };
  };
  const user = async (id: string) =>
    (await t.deps.database.db.select().from(endUsers).where(eq(endUsers.id, id)))[0];
  const usersOfTenant = () =>
    t.deps.database.db.select().from(endUsers).where(eq(endUsers.tenantId, tenant.tenantId));
  return { tenant, key, sdk, identify, session, user, usersOfTenant };
}

describe('POST /api/sdk/identify', () => {
  it('creates the end user, then updates it, answering 200 both times (an upsert) with the same internal id', async () => {
    const { identify, user, tenant } = await setup();
    const created = await identify({ userId: 'u-1', traits: { plan: 'pro' } });
    expect(created.statusCode).toBe(200);
    const { id } = created.json().data;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await identify({ userId: 'u-1' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ data: { id } });
    expect(await user(id)).toMatchObject({
      tenantId: tenant.tenantId,
      externalId: 'u-1',
      anonymousId: null,
      traits: { plan: 'pro' },
    });
  });

  it('merges traits shallowly: given keys replace stored ones, others are kept', async () => {
    const { identify, user } = await setup();
    const { id } = (
      await identify({ userId: 'u-1', traits: { a: 1, nested: { x: 1, y: 1 }, keep: true } })
    ).json().data;
    await identify({ userId: 'u-1', traits: { nested: { y: 2 }, c: 'three', a: null } });
    expect((await user(id))!.traits).toEqual({ a: null, nested: { y: 2 }, keep: true, c: 'three' });
  });

  it('refuses traits that would grow the stored traits past 64 KiB, keeping what was stored', async () => {
    const { identify, user } = await setup();
    const big = 'x'.repeat(30_000);
    const { id } = (await identify({ userId: 'u-big', traits: { a: big } })).json().data;
    expect((await identify({ userId: 'u-big', traits: { b: big } })).statusCode).toBe(200);
    const res = await identify({ userId: 'u-big', traits: { c: big } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([{ path: 'traits', message: expect.any(String) }]);
    expect(Object.keys((await user(id))!.traits)).toEqual(['a', 'b']);
  });

  it('records an IDENTIFY event under X-Correlation-Id', async () => {
    const { identify, tenant } = await setup();
    const res = await identify({ userId: 'u-1', traits: { plan: 'pro' }, anonymousId: 'anon-1' });
    const correlationId = res.headers['x-correlation-id'] as string;
    expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
    const [batch] = await t.deps.database.db
      .select()
      .from(eventBatches)
      .where(eq(eventBatches.correlationId, correlationId));
    expect(batch!.tenantId).toBe(tenant.tenantId);
    expect(JSON.parse(storedBody(batch!.events, batch!.eventsBr)) as StoredEvent[]).toContainEqual(
      expect.objectContaining({
        type: 'IDENTIFY',
        userId: 'u-1',
        anonymousId: 'anon-1',
        properties: { traits: { plan: 'pro' }, endUserId: res.json().data.id },
      }),
    );
  });

  it('adopts the anonymous visitor of an earlier session when the user is new', async () => {
    const { identify, session, user, usersOfTenant } = await setup();
    const anonymous = await session({ anonymousId: 'anon-1' });
    const res = await identify({ userId: 'u-1', anonymousId: 'anon-1', traits: { plan: 'pro' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.id).toBe(anonymous.endUserId);
    expect(await user(anonymous.endUserId!)).toMatchObject({
      externalId: 'u-1',
      anonymousId: 'anon-1',
      traits: { plan: 'pro' },
    });
    expect(await usersOfTenant()).toHaveLength(1);
    // later sessions by userId, or by the anonymousId alone, are this user
    expect((await session({ userId: 'u-1' })).endUserId).toBe(anonymous.endUserId);
    expect((await session({ anonymousId: 'anon-1' })).endUserId).toBe(anonymous.endUserId);
  });

  it('merges the anonymous visitor into an existing user, moving its item states, and deletes it', async () => {
    const { identify, session, sdk, tenant, user, usersOfTenant } = await setup();
    const flow = await publishedFlow(t, tenant);
    const known = (await identify({ userId: 'u-1', traits: { plan: 'pro' } })).json().data.id;
    const anonymous = await session({ anonymousId: 'anon-1' });
    expect(anonymous.endUserId).not.toBe(known);
    await t.deps.database.db
      .update(endUsers)
      .set({ traits: { plan: 'free', source: 'ad' } })
      .where(eq(endUsers.id, anonymous.endUserId!));
    await sdk('POST', '/api/sdk/events', {
      events: [{ type: 'FLOW_DISMISSED', anonymousId: 'anon-1', properties: { flowId: flow } }],
    });
    await t.processEvents();
    expect((await session({ userId: 'u-1' })).flows.map((f) => f.id)).toEqual([flow]);

    const res = await identify({ userId: 'u-1', anonymousId: 'anon-1' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.id).toBe(known);
    expect(await user(anonymous.endUserId!)).toBeUndefined();
    expect(await usersOfTenant()).toHaveLength(1);
    // the identified user's traits win over the anonymous visitor's
    expect(await user(known)).toMatchObject({ anonymousId: 'anon-1', traits: { plan: 'pro', source: 'ad' } });
    const states = await t.deps.database.db
      .select()
      .from(endUserItemStates)
      .where(and(eq(endUserItemStates.tenantId, tenant.tenantId), eq(endUserItemStates.itemId, flow)));
    expect(states).toEqual([expect.objectContaining({ endUserId: known, dismissedAt: expect.any(Date) })]);
    // the dismissal now caps the identified user, whichever id the SDK sends
    expect((await session({ userId: 'u-1' })).flows).toEqual([]);
    expect((await session({ anonymousId: 'anon-1' })).endUserId).toBe(known);
  });

  it('keeps end users of different tenants apart', async () => {
    const a = await setup();
    const b = await setup();
    const idA = (await a.identify({ userId: 'same' })).json().data.id;
    const resB = await b.identify({ userId: 'same' });
    expect(resB.statusCode).toBe(200);
    expect(resB.json().data.id).not.toBe(idA);
    // another tenant's anonymous visitor is never linked
    const anonB = await b.session({ anonymousId: 'anon-x' });
    const linked = await a.identify({ userId: 'other', anonymousId: 'anon-x' });
    expect(linked.statusCode).toBe(200);
    expect(linked.json().data.id).not.toBe(anonB.endUserId);
    expect(await b.user(anonB.endUserId!)).toMatchObject({ externalId: null, anonymousId: 'anon-x' });
  });

  it('creates one end user under concurrent identifies of the same userId', async () => {
    const { identify, usersOfTenant } = await setup();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => identify({ userId: 'u-c', traits: { [`k${i}`]: i } })),
    );
    const ids = new Set(results.map((r) => r.json().data.id));
    expect(ids.size).toBe(1);
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    const rows = await usersOfTenant();
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!.traits).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
  });

  it('validates the body with exact paths', async () => {
    const { identify } = await setup();
    const big = { blob: 'x'.repeat(MAX_TRAITS_BYTES) };
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'userId'],
      [{ userId: '' }, 'userId'],
      [{ userId: 'x'.repeat(256) }, 'userId'],
      [{ userId: 7 }, 'userId'],
      [{ userId: 'u', traits: 'pro' }, 'traits'],
      [{ userId: 'u', traits: [1] }, 'traits'],
      [{ userId: 'u', traits: big }, 'traits'],
      [{ userId: 'u', anonymousId: '' }, 'anonymousId'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await identify(body), 400, 'VALIDATION_ERROR');
      expect(error.details, JSON.stringify(body).slice(0, 80)).toContainEqual({
        path,
        message: expect.any(String),
      });
    }
    // just under the cap is fine
    const fits = { blob: 'x'.repeat(MAX_TRAITS_BYTES - 20) };
    expect((await identify({ userId: 'u', traits: fits })).statusCode).toBe(200);
  });

  it('needs a valid API key', async () => {
    const { tenant } = await setup();
    const post = (headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/api/sdk/identify', headers, payload: { userId: 'u' } });
    expectError(await post({}), 401, 'AUTH_FAILED');
    expectError(await post({ 'x-api-key': `wfx_${'1'.repeat(64)}` }), 401, 'AUTH_FAILED');
    expectError(await post({ authorization: `Bearer ${tenant.owner.token}` }), 401, 'AUTH_FAILED');
  });
});
