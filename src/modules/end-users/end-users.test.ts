import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, publishedContent, publishedFlow, sdkCall, tooltip } from '../../../test/helpers/sdk.js';
import { endUserItemStates, endUsers } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';

/** GET /api/end-users and GET /api/end-users/:id (docs/end-users.md), through HTTP. */

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let sdk: ReturnType<typeof sdkCall>;

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
const MIN = 60_000;

interface Listed {
  id: string;
  userId: string | null;
  anonymousId: string | null;
  traits: Record<string, unknown>;
  firstSeenAt: string;
  lastSeenAt: string;
}

const list = async (query = '', who: TenantFixture | { headers: Record<string, string> } = acme) => {
  const res = await callAs(t, who, 'GET', `/api/end-users${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: Listed[];
    meta: { page: number; limit: number; total: number; totalPages: number };
  };
};
const userIds = (page: { data: Listed[] }) => page.data.map((u) => u.userId ?? `anon:${u.anonymousId}`);

/** Identifies `userId` through the SDK at `at` (the end user's last seen). */
async function identify(userId: string, at: number, traits?: Record<string, unknown>, anonymousId?: string) {
  t.clock.set(at);
  const res = await sdk('POST', '/api/sdk/identify', {
    userId,
    ...(traits ? { traits } : {}),
    ...(anonymousId ? { anonymousId } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.id as string;
}

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
  sdk = sdkCall(t, await apiKeyOf(t, acme));
  // Seen in this order: ada first (oldest), then bob, carla, dave; an anonymous visitor last.
  await identify('ada', T0, { email: 'ada@lovelace.dev', name: 'Ada Lovelace', plan: 'pro' });
  await identify('bob', T0 + MIN, { email: 'bob@example.com', name: 'Robert' });
  await identify('carla', T0 + 2 * MIN, { name: 'Carla_100%' });
  await identify('dave', T0 + 3 * MIN);
  await t.deps.database.db.insert(endUsers).values({
    id: newId(),
    tenantId: acme.tenantId,
    anonymousId: 'anon-visitor',
    firstSeenAt: new Date(T0 + 4 * MIN),
    lastSeenAt: new Date(T0 + 4 * MIN),
  });
  // Another tenant's end user with a userId acme also has.
  await t.deps.database.db.insert(endUsers).values({
    id: newId(),
    tenantId: other.tenantId,
    externalId: 'ada',
    traits: { email: 'ada@other.dev' },
  });
});

afterAll(() => t.close());

describe('GET /api/end-users', () => {
  it('lists the tenant’s end users, last seen first, with their fields', async () => {
    const page = await list();
    expect(userIds(page)).toEqual(['anon:anon-visitor', 'dave', 'carla', 'bob', 'ada']);
    expect(page.meta).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    const ada = page.data.find((u) => u.userId === 'ada')!;
    expect(ada).toEqual({
      id: expect.any(String),
      userId: 'ada',
      anonymousId: null,
      traits: { email: 'ada@lovelace.dev', name: 'Ada Lovelace', plan: 'pro' },
      firstSeenAt: new Date(T0).toISOString(),
      lastSeenAt: new Date(T0).toISOString(),
    });
  });

  it('moves an end user up when seen again', async () => {
    await identify('bob', T0 + 10 * MIN, { name: 'Robert' });
    try {
      expect(userIds(await list()).slice(0, 2)).toEqual(['bob', 'anon:anon-visitor']);
    } finally {
      // back to its place for the other tests: last seen only moves forward, so put it back in the table
      await t.deps.database.db
        .update(endUsers)
        .set({ lastSeenAt: new Date(T0 + MIN) })
        .where(eq(endUsers.externalId, 'bob'));
    }
  });

  it('pages, every user once, in order', async () => {
    const first = await list('?limit=2');
    const second = await list('?limit=2&page=2');
    const third = await list('?limit=2&page=3');
    expect(first.meta).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 });
    expect([...userIds(first), ...userIds(second), ...userIds(third)]).toEqual([
      'anon:anon-visitor',
      'dave',
      'carla',
      'bob',
      'ada',
    ]);
    expect((await list('?limit=2&page=4')).data).toEqual([]);
  });

  it('breaks ties of last seen by id, so pages neither repeat nor skip', async () => {
    const tenant = await createTenant(t);
    const at = new Date(T0);
    const rows = Array.from({ length: 7 }, (_, i) => ({
      id: newId(),
      tenantId: tenant.tenantId,
      externalId: `same-${i}`,
      firstSeenAt: at,
      lastSeenAt: at,
    }));
    await t.deps.database.db.insert(endUsers).values(rows);
    const seen: string[] = [];
    for (let p = 1; p <= 3; p++)
      seen.push(...(await list(`?limit=3&page=${p}`, tenant)).data.map((u) => u.id));
    expect(seen).toEqual(
      rows
        .map((r) => r.id)
        .sort()
        .reverse(),
    );
  });

  it('searches the start of the userId, the anonymous id and the email and name traits, case-insensitively', async () => {
    expect(userIds(await list('?search=AD'))).toEqual(['ada']);
    expect(userIds(await list('?search=ovelace'))).toEqual([]); // a prefix, not a substring
    expect(userIds(await list('?search=bob%40'))).toEqual(['bob']); // email
    expect(userIds(await list('?search=robert'))).toEqual(['bob']); // name
    expect(userIds(await list('?search=ada%20love'))).toEqual(['ada']);
    expect(userIds(await list('?search=anon-'))).toEqual(['anon:anon-visitor']);
    expect(userIds(await list('?search=%20%20dave%20'))).toEqual(['dave']); // trimmed
    // LIKE's wildcards match themselves
    expect(userIds(await list('?search=_'))).toEqual([]);
    expect(userIds(await list('?search=%25'))).toEqual([]);
    expect(userIds(await list('?search=carla_100%25'))).toEqual(['carla']);
    expect(userIds(await list('?search=a'))).toEqual(['anon:anon-visitor', 'ada']); // matched once each
    const found = await list('?search=a&limit=1');
    expect(found.meta).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    const ada = (await list('?search=ada')).data[0]!;
    expect(userIds(await list(`?search=${ada.id}`))).toEqual(['ada']); // the service id
  });

  it('never lists another tenant’s end users', async () => {
    const theirs = await list('', other);
    expect(theirs.data.map((u) => u.traits)).toEqual([{ email: 'ada@other.dev' }]);
    expect((await list('?search=ada%40other')).data).toEqual([]);
  });

  it('refuses a bad page, limit or search, naming the field', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=x', 'limit'],
      ['?page=0', 'page'],
      ['?page=-1', 'page'],
      [`?search=${'x'.repeat(256)}`, 'search'],
    ] as const) {
      const error = expectError(
        await callAs(t, acme, 'GET', `/api/end-users${query}`),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.details, query).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: `query.${field}` })]),
      );
    }
  });

  it('takes a signed-in member of any role', async () => {
    const viewer = await acme.as('VIEWER');
    expect((await list('', viewer)).meta.total).toBe(5);
    expectError(await t.inject({ method: 'GET', url: '/api/end-users' }), 401, 'AUTH_NO_TOKEN');
    const key = await apiKeyOf(t, acme);
    const res = await t.inject({ method: 'GET', url: '/api/end-users', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/end-users/:id', () => {
  it('answers by service id or userId, with the items completed and dismissed', async () => {
    const flow = await publishedFlow(t, acme, { name: 'Welcome tour' });
    const tip = await publishedContent(t, acme, 'tooltips', tooltip({ name: 'Save tip' }));
    const gone = newId(); // an item that no longer exists (flows are archived, never removed, by the API)
    t.clock.set(T0 + 20 * MIN);
    const events = await sdk('POST', '/api/sdk/events', {
      events: [
        { type: 'FLOW_COMPLETED', userId: 'ada', properties: { flowId: flow } },
        { type: 'FLOW_DISMISSED', userId: 'ada', properties: { contentId: tip } },
      ],
    });
    expect(events.statusCode, events.body).toBe(202);
    await t.processEvents();
    const adaId = (await list('?search=ada')).data[0]!.id;
    await t.deps.database.db
      .insert(endUserItemStates)
      .values({ tenantId: acme.tenantId, endUserId: adaId, itemId: gone, completedAt: new Date(T0) });

    const byUserId = await callAs(t, acme, 'GET', '/api/end-users/ada');
    expect(byUserId.statusCode, byUserId.body).toBe(200);
    const ada = byUserId.json().data;
    expect(ada).toMatchObject({
      userId: 'ada',
      traits: { email: 'ada@lovelace.dev', plan: 'pro' },
      firstSeenAt: new Date(T0).toISOString(),
      createdAt: expect.any(String),
    });
    const states = Object.fromEntries(ada.itemStates.map((s: { itemId: string }) => [s.itemId, s]));
    expect(states[flow]).toMatchObject({
      kind: 'flow',
      contentType: null,
      name: 'Welcome tour',
      dismissedAt: null,
    });
    expect(states[flow].completedAt).toEqual(expect.any(String));
    expect(states[tip]).toMatchObject({
      kind: 'content',
      contentType: 'tooltips',
      name: 'Save tip',
      completedAt: null,
    });
    expect(states[gone]).toMatchObject({ kind: null, contentType: null, name: null });
    expect(ada.itemStates).toHaveLength(3);

    const byId = await callAs(t, acme, 'GET', `/api/end-users/${ada.id}`);
    expect(byId.json().data).toEqual(ada);
    // the delivery explanation finds the same end user by the same rule
    const explained = await callAs(t, acme, 'GET', '/api/end-users/ada/delivery');
    expect(explained.json().data.endUserId).toBe(ada.id);
  });

  it('answers an anonymous visitor by its service id, with no items', async () => {
    const anon = (await list('?search=anon-visitor')).data[0]!;
    const res = await callAs(t, acme, 'GET', `/api/end-users/${anon.id}`);
    expect(res.json().data).toMatchObject({ userId: null, anonymousId: 'anon-visitor', itemStates: [] });
  });

  it('is 404 for an unknown user and for another tenant’s, by id or userId', async () => {
    const theirs = (await list('', other)).data[0]!;
    expectError(await callAs(t, acme, 'GET', `/api/end-users/${theirs.id}`), 404, 'NOT_FOUND');
    expectError(await callAs(t, acme, 'GET', '/api/end-users/nobody'), 404, 'NOT_FOUND');
    expectError(await callAs(t, acme, 'GET', `/api/end-users/${newId()}`), 404, 'NOT_FOUND');
    // acme's ada is not theirs
    const theirAda = await callAs(t, other, 'GET', '/api/end-users/ada');
    expect(theirAda.json().data).toMatchObject({ id: theirs.id, itemStates: [] });
    expectError(await callAs(t, acme, 'GET', `/api/end-users/${'x'.repeat(256)}`), 400, 'VALIDATION_ERROR');
  });

  it('takes a VIEWER, and no one signed out', async () => {
    const viewer = await acme.as('VIEWER');
    expect((await callAs(t, viewer, 'GET', '/api/end-users/dave')).statusCode).toBe(200);
    expectError(await t.inject({ method: 'GET', url: '/api/end-users/dave' }), 401, 'AUTH_NO_TOKEN');
  });
});
