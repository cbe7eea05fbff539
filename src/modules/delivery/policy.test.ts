import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, callAs, createTenant } from '../../../test/helpers/factories.js';
import {
  apiKeyOf,
  dashboard,
  publishedContent,
  publishedFlow,
  SITE,
  sdkCall,
} from '../../../test/helpers/sdk.js';
import { endUserServes } from '../../db/schema/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const announcement = (extra: Record<string, unknown> = {}) => ({
  name: 'News',
  siteId: SITE,
  type: 'BANNER',
  content: { title: 'New', body: 'Something new' },
  ...extra,
});

async function setup() {
  const tenant = await createTenant(t);
  const sdk = sdkCall(t, await apiKeyOf(t, tenant));
  const session = async (body: Record<string, unknown> = { userId: 'u-1' }) => {
    const res = await sdk('POST', '/api/sdk/session', body);
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    return {
      flows: (data.flows as { id: string }[]).map((f) => f.id),
      content: (data.content as { id: string }[]).map((c) => c.id),
      data,
    };
  };
  const policy = (body: unknown) => dashboard(t, tenant, 'PUT', '/api/delivery-policy', body);
  return { tenant, sdk, session, policy };
}

const servesOf = (tenantId: string) =>
  t.deps.database.db.select().from(endUserServes).where(eq(endUserServes.tenantId, tenantId));

describe('priority and bypassCaps on flows and content items', () => {
  it('default to 0 and false, are set on create and update, and read back (list too)', async () => {
    const tenant = await createTenant(t);
    const flow = await dashboard(t, tenant, 'POST', '/api/flows', {
      name: 'F',
      siteId: SITE,
      template: 'CUSTOM',
    });
    expect(flow).toMatchObject({ priority: 0, bypassCaps: false });
    const updated = await dashboard(t, tenant, 'PATCH', `/api/flows/${flow.id}`, {
      priority: -3,
      bypassCaps: true,
    });
    expect(updated).toMatchObject({ priority: -3, bypassCaps: true });
    expect(await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}`)).toMatchObject({
      priority: -3,
      bypassCaps: true,
    });
    const list = (await callAs(t, tenant, 'GET', '/api/flows')).json().data;
    expect(list[0]).toMatchObject({ id: flow.id, priority: -3, bypassCaps: true });

    const item = await dashboard(
      t,
      tenant,
      'POST',
      '/api/content/announcements',
      announcement({ priority: 7 }),
    );
    expect(item).toMatchObject({ priority: 7, bypassCaps: false });
    const patched = await dashboard(t, tenant, 'PATCH', `/api/content/announcements/${item.id}`, {
      bypassCaps: true,
    });
    expect(patched).toMatchObject({ priority: 7, bypassCaps: true });
    const items = (await callAs(t, tenant, 'GET', '/api/content/announcements')).json().data;
    expect(items[0]).toMatchObject({ priority: 7, bypassCaps: true });
  });

  it('refuses a priority that is not an integer and a bypassCaps that is not a boolean (400 at the field)', async () => {
    const tenant = await createTenant(t);
    for (const [body, path] of [
      [{ priority: 1.5 }, 'priority'],
      [{ priority: '3' }, 'priority'],
      [{ bypassCaps: 'yes' }, 'bypassCaps'],
    ] as const) {
      const res = await callAs(t, tenant, 'POST', '/api/flows', {
        name: 'F',
        siteId: SITE,
        template: 'CUSTOM',
        ...body,
      });
      const err = expectError(res, 400, 'VALIDATION_ERROR');
      expect(err.details).toEqual([{ path, message: expect.any(String) }]);
      const content = await callAs(t, tenant, 'POST', '/api/content/announcements', announcement(body));
      expect(expectError(content, 400, 'VALIDATION_ERROR').details).toEqual([
        { path, message: expect.any(String) },
      ]);
    }
  });
});

describe('GET / PUT /api/delivery-policy', () => {
  it('answers the defaults, which hold nothing back, until a policy is set', async () => {
    const { tenant } = await setup();
    expect(await dashboard(t, tenant, 'GET', '/api/delivery-policy')).toEqual({
      caps: [],
      cooldownSeconds: 0,
      afterDismissDays: null,
      updatedAt: null,
    });
  });

  it('replaces the policy (OWNER / ADMIN), audits it, and reads it back; another tenant keeps its own', async () => {
    const { tenant, policy } = await setup();
    const other = await createTenant(t);
    const body = {
      caps: [
        { scope: 'all', max: 3, per: 'day' },
        { scope: 'modal-like', max: 1, per: 'session' },
        { scope: 'announcements', max: 2, per: 'week' },
      ],
      cooldownSeconds: 300,
      afterDismissDays: 14,
    };
    const saved = await policy(body);
    expect(saved).toEqual({ ...body, updatedAt: expect.any(String) });
    expect(await dashboard(t, tenant, 'GET', '/api/delivery-policy')).toEqual(saved);
    const [entry] = await auditEntries(t, tenant.tenantId, { action: 'DELIVERY_POLICY_UPDATED' });
    expect(entry!.metadata).toMatchObject({ before: { caps: [] }, after: body });
    expect(await dashboard(t, other, 'GET', '/api/delivery-policy')).toMatchObject({
      caps: [],
      updatedAt: null,
    });

    const admin = await tenant.as('ADMIN');
    expect((await callAs(t, admin, 'PUT', '/api/delivery-policy', { caps: [] })).statusCode).toBe(200);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const who = await tenant.as(role);
      expectError(await callAs(t, who, 'PUT', '/api/delivery-policy', body), 403, 'INSUFFICIENT_ROLE');
    }
    expect((await callAs(t, await tenant.as('VIEWER'), 'GET', '/api/delivery-policy')).statusCode).toBe(200);
    expectError(await t.inject({ method: 'GET', url: '/api/delivery-policy' }), 401, 'AUTH_NO_TOKEN');
  });

  it('refuses a bad policy with 400 VALIDATION_ERROR naming the field, and changes nothing', async () => {
    const { tenant, policy } = await setup();
    const good = {
      caps: [{ scope: 'flows', max: 1, per: 'hour' }],
      cooldownSeconds: 60,
      afterDismissDays: null,
    };
    await policy(good);
    const bad: [unknown, string][] = [
      [{ caps: [{ scope: 'popups', max: 1, per: 'day' }] }, 'caps.0.scope'],
      [{ caps: [{ scope: 'all', max: 1, per: 'month' }] }, 'caps.0.per'],
      [{ caps: [{ scope: 'all', max: 0, per: 'day' }] }, 'caps.0.max'],
      [{ caps: [{ scope: 'all', max: 1.5, per: 'day' }] }, 'caps.0.max'],
      [{ cooldownSeconds: -1 }, 'cooldownSeconds'],
      [{ afterDismissDays: -2 }, 'afterDismissDays'],
      [{ caps: 'all' }, 'caps'],
    ];
    for (const [body, path] of bad) {
      const err = expectError(
        await callAs(t, tenant, 'PUT', '/api/delivery-policy', body),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details, JSON.stringify(body)).toEqual([{ path, message: expect.any(String) }]);
    }
    expect(await dashboard(t, tenant, 'GET', '/api/delivery-policy')).toMatchObject(good);
    expect(await auditEntries(t, tenant.tenantId, { action: 'DELIVERY_POLICY_UPDATED' })).toHaveLength(1);
  });
});

describe('POST /api/sdk/session under a delivery policy', () => {
  it('without a policy serves every eligible item and writes no ledger row', async () => {
    const { tenant, session } = await setup();
    const a = await publishedFlow(t, tenant, { name: 'A' });
    const b = await publishedFlow(t, tenant, { name: 'B', priority: 2 });
    expect((await session()).flows).toEqual([b, a]);
    expect(await servesOf(tenant.tenantId)).toEqual([]);
  });

  it('serves the highest priority first within a cap, and records what it served', async () => {
    const { tenant, session, policy } = await setup();
    const low = await publishedFlow(t, tenant, { name: 'Low', priority: -1 });
    const high = await publishedFlow(t, tenant, { name: 'High', priority: 5 });
    const mid = await publishedContent(t, tenant, 'announcements', announcement({ priority: 1 }));
    await policy({ caps: [{ scope: 'all', max: 2, per: 'day' }] });
    const first = await session();
    expect(first.flows).toEqual([high]);
    expect(first.content).toEqual([mid]);
    const rows = await servesOf(tenant.tenantId);
    expect(rows.map((r) => r.itemId).sort()).toEqual([high, mid].sort());
    expect(rows.find((r) => r.itemId === mid)!.scopes).toEqual(['all', 'announcements']);
    // the next session: the same two again (already counted today), never the third
    const again = await session();
    expect(again.flows).toEqual([high]);
    expect(again.content).toEqual([mid]);
    // a day later the window is empty again
    t.clock.advance(86_400_000 + 1000);
    try {
      expect((await session()).flows).toEqual([high]);
    } finally {
      t.clock.reset();
    }
    expect(low).toBeDefined();
  });

  it('never caps manual items nor bypassCaps items; the debug mode lists the codes of what it held back', async () => {
    const { tenant, session, policy } = await setup();
    const manual = await publishedFlow(t, tenant, {
      name: 'Manual',
      trigger: { type: 'MANUAL', config: {} },
    });
    const auto = await publishedFlow(t, tenant, { name: 'Auto', priority: 1 });
    const other = await publishedFlow(t, tenant, { name: 'Other' });
    const critical = await publishedContent(
      t,
      tenant,
      'announcements',
      announcement({ bypassCaps: true, priority: -5 }),
    );
    await policy({ caps: [{ scope: 'all', max: 1, per: 'session' }] });
    const s = await session({ userId: 'u-2', debug: true });
    expect(s.flows.sort()).toEqual([manual, auto].sort());
    expect(s.content).toEqual([critical]);
    expect(s.data.decisions).toEqual([{ kind: 'flow', id: other, reason: 'LOWER_PRIORITY' }]);
    // without debug the answer has no decisions
    expect((await session({ userId: 'u-2' })).data).not.toHaveProperty('decisions');
    // anonymous visitors (no ledger) still get the session cap
    expect((await session({ anonymousId: 'anon-1' })).flows.sort()).toEqual([manual, auto].sort());
  });

  it('a cooldown holds the next item until it passes; completing the first lets the other start', async () => {
    const { tenant, session, policy, sdk } = await setup();
    const first = await publishedFlow(t, tenant, { name: 'First', priority: 2 });
    const second = await publishedFlow(t, tenant, { name: 'Second' });
    await policy({ cooldownSeconds: 600 });
    const start = Date.now();
    t.clock.set(start);
    try {
      expect((await session({ userId: 'u-3', debug: true })).data.decisions).toEqual([
        { kind: 'flow', id: second, reason: 'LOWER_PRIORITY' },
      ]);
      await sdk('POST', '/api/sdk/events', {
        events: [{ type: 'FLOW_COMPLETED', userId: 'u-3', properties: { flowId: first } }],
      });
      await processAll();
      t.clock.set(start + 60_000);
      const during = await session({ userId: 'u-3', debug: true });
      expect(during.flows).toEqual([]);
      expect(during.data.decisions).toEqual(
        expect.arrayContaining([{ kind: 'flow', id: second, reason: 'COOLDOWN' }]),
      );
      t.clock.set(start + 601_000);
      expect((await session({ userId: 'u-3' })).flows).toEqual([second]);
    } finally {
      t.clock.reset();
    }
  });

  it('afterDismissDays keeps a dismissed item away that long, then serves it again', async () => {
    const { tenant, session, policy, sdk } = await setup();
    const flow = await publishedFlow(t, tenant, { name: 'F' });
    await policy({ afterDismissDays: 2 });
    const start = Date.now();
    t.clock.set(start);
    try {
      expect((await session({ userId: 'u-4' })).flows).toEqual([flow]);
      await sdk('POST', '/api/sdk/events', {
        events: [{ type: 'FLOW_DISMISSED', userId: 'u-4', properties: { flowId: flow } }],
      });
      await processAll();
      const held = await session({ userId: 'u-4', debug: true });
      expect(held.flows).toEqual([]);
      expect(held.data.decisions).toEqual([{ kind: 'flow', id: flow, reason: 'DISMISSED' }]);
      t.clock.set(start + 2 * 86_400_000 + 1000);
      expect((await session({ userId: 'u-4' })).flows).toEqual([flow]);
    } finally {
      t.clock.reset();
    }
  });

  it('counts exposures the SDK reports (a flow started by hand) against the caps', async () => {
    const { tenant, session, policy, sdk } = await setup();
    const manual = await publishedFlow(t, tenant, {
      name: 'Manual',
      trigger: { type: 'MANUAL', config: {} },
    });
    const auto = await publishedFlow(t, tenant, { name: 'Auto' });
    await policy({ caps: [{ scope: 'flows', max: 1, per: 'day' }] });
    await session({ userId: 'u-5', url: 'https://x.test/' }); // the end user exists; nothing counted yet
    expect(await servesOf(tenant.tenantId)).toHaveLength(1); // `auto`, served to start by itself
    const other = await createTenant(t);
    const otherSdk = sdkCall(t, await apiKeyOf(t, other));
    await sdk('POST', '/api/sdk/events', {
      events: [{ type: 'FLOW_STARTED', userId: 'u-6', properties: { flowId: manual } }],
    });
    await otherSdk('POST', '/api/sdk/events', {
      events: [{ type: 'FLOW_STARTED', userId: 'u-6', properties: { flowId: manual } }],
    });
    await processAll();
    const rows = await servesOf(tenant.tenantId);
    expect(rows.find((r) => r.itemId === manual)).toMatchObject({ scopes: ['all', 'flows', 'modal-like'] });
    expect(await servesOf(other.tenantId)).toEqual([]); // no policy, no ledger
    // u-6 started `manual` by hand: the day's one flow is taken
    const s = await session({ userId: 'u-6', debug: true });
    expect(s.flows).toEqual([manual]);
    expect(s.data.decisions).toEqual([{ kind: 'flow', id: auto, reason: 'CAPPED' }]);
  });

  it('keeps what an anonymous visitor was served when identify merges it into the user', async () => {
    const { tenant, session, policy, sdk } = await setup();
    const a = await publishedFlow(t, tenant, { name: 'A', priority: 1 });
    const b = await publishedFlow(t, tenant, { name: 'B' });
    await policy({ caps: [{ scope: 'flows', max: 1, per: 'day' }] });
    expect((await session({ anonymousId: 'anon-9' })).flows).toEqual([a]);
    // the user, known before, was served nothing; then the visitor signs in as them
    await sdk('POST', '/api/sdk/identify', { userId: 'u-9' });
    const res = await sdk('POST', '/api/sdk/identify', { userId: 'u-9', anonymousId: 'anon-9' });
    expect(res.statusCode, res.body).toBe(200);
    const s = await session({ userId: 'u-9', debug: true });
    expect(s.flows).toEqual([a]);
    // the visitor's serve of `a` moved to the user: the day's one flow is taken (else LOWER_PRIORITY)
    expect(s.data.decisions).toEqual([{ kind: 'flow', id: b, reason: 'CAPPED' }]);
    const rows = await servesOf(tenant.tenantId);
    expect(rows.filter((r) => r.itemId === a)).toHaveLength(1);
  });

  it('two concurrent sessions of one user on two instances cannot both take the last slot', async () => {
    const { tenant, policy } = await setup();
    const key = await apiKeyOf(t, tenant);
    const onA = await publishedFlow(t, tenant, {
      name: 'A',
      trigger: { type: 'URL_MATCH', config: { pattern: '/a' } },
    });
    const onB = await publishedFlow(t, tenant, {
      name: 'B',
      trigger: { type: 'URL_MATCH', config: { pattern: '/b' } },
    });
    await policy({ caps: [{ scope: 'flows', max: 1, per: 'day' }] });
    const second = await createTestApp({ db: t.db });
    try {
      for (let round = 0; round < 4; round++) {
        const userId = `racer-${round}`;
        const call = (app: TestApp, url: string) =>
          sdkCall(app, key)('POST', '/api/sdk/session', { userId, url: `https://x.test${url}` });
        // The end user exists first (its row is what the sessions lock).
        await sdkCall(t, key)('POST', '/api/sdk/session', { userId });
        const [a, b] = await Promise.all([call(t, '/a'), call(second, '/b')]);
        const served = [...a.json().data.flows, ...b.json().data.flows].map((f: { id: string }) => f.id);
        expect(served, `round ${round}`).toHaveLength(1);
        expect([onA, onB]).toContain(served[0]);
        const rows = await t.deps.database.db
          .select()
          .from(endUserServes)
          .where(and(eq(endUserServes.tenantId, tenant.tenantId)));
        expect(rows.filter((r) => r.itemId === served[0]).length).toBeGreaterThan(0);
      }
    } finally {
      await second.close();
    }
  });
});

const processAll = () => t.processEvents();
