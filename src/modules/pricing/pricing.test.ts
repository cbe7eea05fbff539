import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import {
  aiTokenUsage,
  apiKeys,
  auditLogs,
  flows,
  members,
  subscriptions,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { provisionTenant } from '../tenants/provision.js';
import { assertFeatureEnabled, assertPlanAllows, getTenantPlan } from './enforce.js';
import type { PlanLimitKey } from './keys.js';
import { addMonths } from './period.js';

const ADMIN_TOKEN = 'platform-admin-token-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

let t: TestApp;

beforeAll(async () => {
  // New tenants start on `free` here (the shared test config gives them enterprise).
  t = await createTestApp({ config: { platformAdminToken: ADMIN_TOKEN, defaultPlan: 'free' } });
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const get = (url: string, headers: Record<string, string>) => t.inject({ method: 'GET', url, headers });
const post = (url: string, headers: Record<string, string>, payload: unknown) =>
  t.inject({ method: 'POST', url, headers, payload: payload as object });
const setPlan = (tenantId: string, plan: string, headers: Record<string, string> = admin) =>
  t.inject({ method: 'PUT', url: `/api/admin/tenants/${tenantId}/subscription`, headers, payload: { plan } });

/** The catalogue as seeded (migration 0006), to keep the expectations in one place. */
const LIMITS: Record<string, Record<PlanLimitKey, number | null>> = {
  free: { flows: 50, activeUsers: 2500, apiKeys: 10, members: 10, aiTokens: 0, journeys: 0, experiments: 0 },
  starter: {
    flows: 200,
    activeUsers: 10000,
    apiKeys: 20,
    members: 25,
    aiTokens: 100000,
    journeys: 10,
    experiments: 0,
  },
  growth: {
    flows: 1000,
    activeUsers: 50000,
    apiKeys: 50,
    members: 100,
    aiTokens: 1000000,
    journeys: 50,
    experiments: 25,
  },
};

// ---- direct seeding, bypassing the routes (and so the limits) ----

async function seedFlows(tenantId: string, n: number, status = 'DRAFT') {
  if (n <= 0) return;
  await db().execute(sql`
    insert into flows (id, tenant_id, site_id, name, template, status)
    select gen_random_uuid(), ${tenantId}, gen_random_uuid(), 'seeded ' || g, 'PRODUCT_TOUR', ${status}
    from generate_series(1, ${n}::int) g`);
}

async function seedApiKeys(
  tenantId: string,
  n: number,
  opts: { revoked?: boolean; expiresAt?: Date | null } = {},
) {
  if (n <= 0) return;
  await db().execute(sql`
    insert into api_keys (id, tenant_id, name, key_hash, key_prefix, revoked_at, expires_at)
    select gen_random_uuid(), ${tenantId}, 'seeded', md5(random()::text || g || clock_timestamp()::text), 'wfx_seeded',
      ${opts.revoked ? sql`now()` : sql`null`}, ${opts.expiresAt ? opts.expiresAt.toISOString() : null}::timestamptz
    from generate_series(1, ${n}::int) g`);
}

/** Pending invites (the owner is already one member). */
async function seedMembers(tenantId: string, n: number) {
  if (n <= 0) return;
  await db().execute(sql`
    insert into members (id, tenant_id, email, role, is_pending)
    select gen_random_uuid(), ${tenantId}, 'seeded-' || g || '-' || md5(random()::text) || '@example.com', 'VIEWER', true
    from generate_series(1, ${n}::int) g`);
}

async function seedEndUsers(tenantId: string, n: number, lastSeenAt = new Date()) {
  if (n <= 0) return;
  await db().execute(sql`
    insert into end_users (id, tenant_id, external_id, last_seen_at)
    select gen_random_uuid(), ${tenantId}, 'user-' || g || '-' || md5(random()::text), ${lastSeenAt.toISOString()}::timestamptz
    from generate_series(1, ${n}::int) g`);
}

async function seedAiTokens(tenantId: string, tokens: number, createdAt = new Date()) {
  if (tokens <= 0) return;
  await db().insert(aiTokenUsage).values({ id: newId(), tenantId, tokens, createdAt });
}

const SEEDERS: Partial<Record<PlanLimitKey, (tenantId: string, n: number) => Promise<void>>> = {
  flows: seedFlows,
  apiKeys: seedApiKeys,
  members: seedMembers,
  activeUsers: (tenantId, n) => seedEndUsers(tenantId, n),
  aiTokens: seedAiTokens,
};

/** `assertPlanAllows` the way modules call it: inside their transaction. */
async function allows(tenantId: string, key: PlanLimitKey, now?: Date): Promise<AppError | null> {
  try {
    await db().transaction(async (tx) => assertPlanAllows(tx, tenantId, key, now));
    return null;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

async function createKey(tenant: TenantFixture, name = 'k') {
  return post('/api/tenants/api-keys', tenant.owner.headers, { name });
}

describe('plans catalogue', () => {
  it('lists the four seeded plans cheapest first, with numeric prices, features and limits', async () => {
    const tenant = await createTenant(t);
    const viewer = await tenant.as('VIEWER');
    const res = await get('/api/pricing/plans', viewer.headers);
    expect(res.statusCode).toBe(200);
    const plans = res.json().data as Array<Record<string, unknown>>;
    expect(plans.map((p) => p.name)).toEqual(['free', 'starter', 'growth', 'enterprise']);
    for (const plan of plans) {
      expect(plan).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: expect.any(String),
        priceMonthly: expect.any(Number),
        priceYearly: expect.any(Number),
        features: {
          flows: expect.any(Boolean),
          surveys: expect.any(Boolean),
          experiments: expect.any(Boolean),
          ai: expect.any(Boolean),
          journeys: expect.any(Boolean),
          translations: expect.any(Boolean),
        },
        limits: expect.any(Object),
        retentionDays: expect.any(Number),
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
    }
    const byName = Object.fromEntries(plans.map((p) => [p.name, p]));
    for (const name of ['free', 'starter', 'growth']) expect(byName[name]!.limits).toEqual(LIMITS[name]);
    // Days events are kept (migration 0096): not a usage limit, so beside `limits`.
    expect(plans.map((p) => p.retentionDays)).toEqual([30, 90, 180, 365]);
    expect(byName.free).toMatchObject({
      priceMonthly: 0,
      priceYearly: 0,
      features: {
        flows: true,
        surveys: true,
        experiments: false,
        ai: false,
        journeys: false,
        translations: true,
      },
    });
    // every seeded plan includes translations
    for (const plan of plans) expect((plan.features as { translations: boolean }).translations).toBe(true);
    expect(byName.growth!.features).toEqual({
      flows: true,
      surveys: true,
      experiments: true,
      ai: true,
      journeys: true,
      translations: true,
    });
    expect(Object.values(byName.enterprise!.limits as object).every((v) => v === null)).toBe(true);
    expect(Object.values(byName.enterprise!.features as object).every((v) => v === true)).toBe(true);
    const prices = plans.map((p) => p.priceMonthly as number);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
  });
});

describe('current subscription', () => {
  it('puts a new tenant on DEFAULT_PLAN for one month', async () => {
    const tenant = await createTenant(t);
    const res = await get('/api/pricing/current', (await tenant.as('VIEWER')).headers);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toEqual({
      plan: 'free',
      status: 'active',
      currentPeriodStart: expect.any(String),
      currentPeriodEnd: expect.any(String),
      isFreePlan: true,
    });
    const start = new Date(data.currentPeriodStart);
    expect(Math.abs(start.getTime() - Date.now())).toBeLessThan(60_000);
    expect(data.currentPeriodEnd).toBe(addMonths(start, 1).toISOString());
  });

  it('provisions on the plan it is given', async () => {
    const onGrowth = await createTenant(t, { plan: 'growth' });
    const res = await get('/api/pricing/current', onGrowth.owner.headers);
    expect(res.json().data).toMatchObject({ plan: 'growth', isFreePlan: false });

    const userId = newId();
    const email = `p-${userId}@example.com`;
    const { tenant } = await db().transaction(async (tx) => {
      await tx.insert(users).values({ id: userId, email });
      return provisionTenant(tx, { name: `Free ${userId}`, owner: { userId, email }, plan: 'free' });
    });
    expect((await getTenantPlan(db(), tenant.id)).name).toBe('free');
  });

  it('refuses to provision on an unknown plan, leaving nothing behind', async () => {
    const userId = newId();
    const email = `u-${userId}@example.com`;
    const name = `Unknown plan ${userId}`;
    await expect(
      db().transaction(async (tx) => {
        await tx.insert(users).values({ id: userId, email });
        return provisionTenant(tx, { name, owner: { userId, email }, plan: 'platinum' });
      }),
    ).rejects.toThrow(/platinum/);
    const rows = await db().execute(sql`select count(*)::int as n from tenants where name = ${name}`);
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(0);
  });

  it('treats a tenant without a subscription row as free', async () => {
    const tenant = await createTenant(t, { plan: 'growth' });
    await db().delete(subscriptions).where(eq(subscriptions.tenantId, tenant.tenantId));
    const res = await get('/api/pricing/current', tenant.owner.headers);
    expect(res.json().data).toMatchObject({ plan: 'free', status: 'active', isFreePlan: true });
    await seedApiKeys(tenant.tenantId, LIMITS.free!.apiKeys!);
    expect((await allows(tenant.tenantId, 'apiKeys'))?.code).toBe('PLAN_LIMIT_REACHED');
  });

  it('starts the fallback period at the injectable clock, also when a feature gate reads the plan first', async () => {
    const later = await createTestApp({ db: t.db, config: { defaultPlan: 'free' } });
    try {
      const tenant = await createTenant(later);
      await db().delete(subscriptions).where(eq(subscriptions.tenantId, tenant.tenantId));
      const pinned = Date.UTC(2024, 0, 15, 10, 0, 0);
      later.clock.set(pinned);
      const res = await later.inject({
        method: 'POST',
        url: '/api/translations/locales',
        headers: tenant.owner.headers,
        payload: { code: 'fr', name: 'French', isDefault: false, isRtl: false },
      });
      expect(res.statusCode).toBe(201);
      const [sub] = await db()
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.tenantId, tenant.tenantId));
      expect(sub!.currentPeriodStart.toISOString()).toBe(new Date(pinned).toISOString());
      expect(sub!.currentPeriodEnd.toISOString()).toBe('2024-02-15T10:00:00.000Z');
    } finally {
      await later.close();
    }
  });

  it('rolls an ended period forward by whole months from its start', async () => {
    // An app of its own: its clock is pinned for good.
    const later = await createTestApp({ db: t.db, config: { defaultPlan: 'free' } });
    try {
      const tenant = await createTenant(later);
      const start = new Date(Date.UTC(2024, 0, 31, 12, 0, 0));
      await db()
        .update(subscriptions)
        .set({ currentPeriodStart: start, currentPeriodEnd: addMonths(start, 1) })
        .where(eq(subscriptions.tenantId, tenant.tenantId));
      later.clock.set(Date.UTC(2024, 3, 15)); // Apr 15 → the period that began Mar 31
      const res = await later.inject({
        method: 'GET',
        url: '/api/pricing/current',
        headers: tenant.owner.headers,
      });
      expect(res.json().data).toMatchObject({
        currentPeriodStart: '2024-03-31T12:00:00.000Z',
        currentPeriodEnd: '2024-04-30T12:00:00.000Z',
      });
      // active users count from the rolled start
      await seedEndUsers(tenant.tenantId, 2, new Date(Date.UTC(2024, 3, 1)));
      await seedEndUsers(tenant.tenantId, 3, new Date(Date.UTC(2024, 2, 30)));
      const usage = await later.inject({
        method: 'GET',
        url: '/api/pricing/usage',
        headers: tenant.owner.headers,
      });
      const active = usage.json().data.usage.find((u: { feature: string }) => u.feature === 'activeUsers');
      expect(active.used).toBe(2);
    } finally {
      await later.close();
    }
  });
});

describe('limits', () => {
  describe.each(['free', 'starter', 'growth'])('%s plan', (plan) => {
    it.each(['flows', 'apiKeys', 'members', 'activeUsers', 'aiTokens'] as PlanLimitKey[])(
      'refuses %s at exactly limit + 1',
      async (key) => {
        const tenant = await createTenant(t, { plan });
        const limit = LIMITS[plan]![key]!;
        const gateOff = plan === 'free' && key === 'aiTokens';
        if (gateOff) {
          const err = await allows(tenant.tenantId, key);
          expect(err?.code).toBe('PLAN_FEATURE_UNAVAILABLE');
          expect(err?.statusCode).toBe(403);
          expect(err?.details).toEqual({ feature: 'ai', plan: 'free' });
          return;
        }
        const already = key === 'members' ? 1 : 0; // the owner
        await SEEDERS[key]!(tenant.tenantId, limit - 1 - already);
        expect(await allows(tenant.tenantId, key)).toBeNull();
        await SEEDERS[key]!(tenant.tenantId, 1);
        const err = await allows(tenant.tenantId, key);
        expect(err?.code).toBe('PLAN_LIMIT_REACHED');
        expect(err?.statusCode).toBe(403);
        expect(err?.details).toEqual({ feature: key, used: limit, limit });
      },
    );
  });

  it('counts at the time it is given: keys expired by then free their slot', async () => {
    const tenant = await createTenant(t);
    const soon = new Date(Date.now() + 86_400_000);
    await seedApiKeys(tenant.tenantId, LIMITS.free!.apiKeys!, { expiresAt: soon });
    expect((await allows(tenant.tenantId, 'apiKeys'))?.details).toEqual({
      feature: 'apiKeys',
      used: 10,
      limit: 10,
    });
    expect(await allows(tenant.tenantId, 'apiKeys', new Date(soon.getTime() + 1000))).toBeNull();
  });

  it('refuses features outside the plan: journeys and experiments on free, experiments on starter', async () => {
    const free = await createTenant(t);
    const starter = await createTenant(t, { plan: 'starter' });
    const growth = await createTenant(t, { plan: 'growth' });
    for (const [tenant, key, ok] of [
      [free, 'journeys', false],
      [free, 'experiments', false],
      [starter, 'experiments', false],
      [starter, 'journeys', true],
      [growth, 'experiments', true],
    ] as const) {
      const err = await allows(tenant.tenantId, key);
      if (ok) expect(err).toBeNull();
      else expect(err?.code).toBe('PLAN_FEATURE_UNAVAILABLE');
    }
    await expect(assertFeatureEnabled(db(), free.tenantId, 'ai')).rejects.toMatchObject({
      code: 'PLAN_FEATURE_UNAVAILABLE',
    });
    await expect(assertFeatureEnabled(db(), free.tenantId, 'surveys')).resolves.toBeUndefined();
    await expect(assertFeatureEnabled(db(), growth.tenantId, 'ai')).resolves.toBeUndefined();
  });

  it('never refuses on enterprise', async () => {
    const tenant = await createTenant(t, { plan: 'enterprise' });
    await seedApiKeys(tenant.tenantId, 30);
    for (const key of [
      'flows',
      'apiKeys',
      'members',
      'activeUsers',
      'aiTokens',
      'journeys',
      'experiments',
    ] as const)
      expect(await allows(tenant.tenantId, key)).toBeNull();
    expect(await getTenantPlan(db(), tenant.tenantId)).toMatchObject({
      name: 'enterprise',
      limits: { flows: null, apiKeys: null },
      features: { ai: true, journeys: true },
    });
  });

  it('refuses the API key past the plan through POST /api/tenants/api-keys; revoked and expired keys free a slot', async () => {
    const tenant = await createTenant(t);
    await seedApiKeys(tenant.tenantId, 8);
    expect((await createKey(tenant)).statusCode).toBe(201);
    const second = await createKey(tenant);
    expect(second.statusCode).toBe(201);
    const refused = expectError(await createKey(tenant), 403, 'PLAN_LIMIT_REACHED');
    expect(refused.details).toEqual({ feature: 'apiKeys', used: 10, limit: 10 });
    expect(refused.category).toBe('AUTH');
    // nothing was created by the refused call
    const count = await db().select().from(apiKeys).where(eq(apiKeys.tenantId, tenant.tenantId));
    expect(count).toHaveLength(10);

    await t.inject({
      method: 'DELETE',
      url: `/api/tenants/api-keys/${second.json().data.id}`,
      headers: tenant.owner.headers,
    });
    expect((await createKey(tenant)).statusCode).toBe(201);
    expectError(await createKey(tenant), 403, 'PLAN_LIMIT_REACHED');

    await db()
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(apiKeys.tenantId, tenant.tenantId), eq(apiKeys.name, 'k')));
    expect((await createKey(tenant)).statusCode).toBe(201);
  });

  it('refuses the flow past the plan through POST /api/flows', async () => {
    const tenant = await createTenant(t);
    await seedFlows(tenant.tenantId, 49);
    await seedFlows(tenant.tenantId, 3, 'ARCHIVED');
    const body = { name: 'Onboarding', siteId: newId(), template: 'PRODUCT_TOUR' };
    const last = await post('/api/flows', tenant.owner.headers, body);
    expect(last.statusCode).toBe(201);
    const refused = expectError(
      await post('/api/flows', tenant.owner.headers, body),
      403,
      'PLAN_LIMIT_REACHED',
    );
    expect(refused.details).toEqual({ feature: 'flows', used: 50, limit: 50 });
    const rows = await db().select().from(flows).where(eq(flows.tenantId, tenant.tenantId));
    expect(rows).toHaveLength(53);
  });

  it('refuses the member past the plan through POST /api/tenants/members (pending invites count)', async () => {
    const tenant = await createTenant(t);
    const invite = (n: number) =>
      post('/api/tenants/members', tenant.owner.headers, {
        email: `m${n}-${newId()}@example.com`,
        role: 'EDITOR',
      });
    await seedMembers(tenant.tenantId, 7); // with the owner: 8
    expect((await invite(1)).statusCode).toBe(201);
    expect((await invite(2)).statusCode).toBe(201);
    const refused = expectError(await invite(3), 403, 'PLAN_LIMIT_REACHED');
    expect(refused.details).toEqual({ feature: 'members', used: 10, limit: 10 });
  });

  it('lets exactly one of two concurrent creates take the last slot', async () => {
    for (let round = 0; round < 3; round++) {
      const tenant = await createTenant(t);
      await seedApiKeys(tenant.tenantId, 8);
      expect((await createKey(tenant)).statusCode).toBe(201);
      const results = await Promise.all([createKey(tenant, 'a'), createKey(tenant, 'b')]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 403]);
      expectError(results.find((r) => r.statusCode === 403)!, 403, 'PLAN_LIMIT_REACHED');
      const rows = await db().select().from(apiKeys).where(eq(apiKeys.tenantId, tenant.tenantId));
      expect(rows).toHaveLength(10);
    }
  });
});

describe('check-feature', () => {
  const check = (tenant: TenantFixture, feature: unknown, headers = tenant.owner.headers) =>
    post('/api/pricing/check-feature', headers, { feature });

  it('answers for a feature on and off the plan', async () => {
    const tenant = await createTenant(t);
    const viewer = await tenant.as('VIEWER');
    for (const feature of ['surveys', 'translations']) {
      const on = await check(tenant, feature, viewer.headers);
      expect(on.statusCode).toBe(200);
      expect(on.json()).toEqual({
        data: { allowed: true, feature, plan: 'free', reason: null, usage: null },
      });
    }
    for (const feature of ['experiments', 'journeys', 'ai', 'aiTokens']) {
      const off = await check(tenant, feature);
      expect(off.json().data).toEqual({
        allowed: false,
        feature,
        plan: 'free',
        reason: expect.stringMatching(/free plan does not include/),
        usage: null,
      });
    }
  });

  it('answers for a limited feature with its usage, refusing at the limit', async () => {
    const tenant = await createTenant(t);
    await seedFlows(tenant.tenantId, 49);
    expect((await check(tenant, 'flows')).json().data).toEqual({
      allowed: true,
      feature: 'flows',
      plan: 'free',
      reason: null,
      usage: { used: 49, limit: 50 },
    });
    await seedFlows(tenant.tenantId, 1);
    expect((await check(tenant, 'flows')).json().data).toEqual({
      allowed: false,
      feature: 'flows',
      plan: 'free',
      reason: expect.stringMatching(/allows 50 flows; 50 in use/),
      usage: { used: 50, limit: 50 },
    });
    expect((await check(tenant, 'apiKeys')).json().data).toMatchObject({
      allowed: true,
      usage: { used: 0, limit: 10 },
    });

    const big = await createTenant(t, { plan: 'enterprise' });
    await seedFlows(big.tenantId, 7);
    expect((await check(big, 'flows')).json().data).toEqual({
      allowed: true,
      feature: 'flows',
      plan: 'enterprise',
      reason: null,
      usage: { used: 7, limit: null },
    });
  });

  it('answers allowed false for an unknown feature name, on any plan', async () => {
    const tenant = await createTenant(t);
    const big = await createTenant(t, { plan: 'enterprise' });
    for (const feature of ['teleport', 'Flows', ' flows', 'x'.repeat(100), '__proto__', 'constructor']) {
      for (const [who, plan] of [
        [tenant, 'free'],
        [big, 'enterprise'],
      ] as const) {
        const res = await check(who, feature);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json(), feature).toEqual({
          data: { allowed: false, feature, plan, reason: `Unknown feature "${feature}"`, usage: null },
        });
      }
    }
  });

  it('answers 400 at `feature` for a missing, empty, too long or non-string feature', async () => {
    const tenant = await createTenant(t);
    for (const payload of [
      { feature: 3 },
      {},
      { feature: '' },
      { feature: 'x'.repeat(101) },
      { feature: null },
    ]) {
      const res = await post('/api/pricing/check-feature', tenant.owner.headers, payload);
      expect(expectError(res, 400, 'VALIDATION_ERROR').details, JSON.stringify(payload)).toEqual([
        { path: 'feature', message: expect.any(String) },
      ]);
    }
  });
});

describe('usage', () => {
  it('counts what exists now on a known fixture', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const { tenantId } = tenant;
    const [sub] = await db().select().from(subscriptions).where(eq(subscriptions.tenantId, tenantId));
    const periodStart = sub!.currentPeriodStart;

    await seedFlows(tenantId, 3);
    await seedFlows(tenantId, 1, 'PUBLISHED');
    await seedFlows(tenantId, 2, 'ARCHIVED');
    await seedApiKeys(tenantId, 1);
    await seedApiKeys(tenantId, 1, { expiresAt: new Date(Date.now() + 86_400_000) });
    await seedApiKeys(tenantId, 1, { revoked: true });
    await seedApiKeys(tenantId, 1, { expiresAt: new Date(Date.now() - 1000) });
    await tenant.as('VIEWER'); // owner + viewer + one pending invite
    await seedMembers(tenantId, 1);
    await seedEndUsers(tenantId, 3);
    await seedEndUsers(tenantId, 2, new Date(periodStart.getTime() - 86_400_000));
    await seedAiTokens(tenantId, 100);
    await seedAiTokens(tenantId, 50, new Date(periodStart.getTime() - 1000));
    // another tenant's records count for nobody else
    await seedFlows(other.tenantId, 4);
    await seedApiKeys(other.tenantId, 2);
    await seedEndUsers(other.tenantId, 5);

    const viewer = await db()
      .select()
      .from(members)
      .where(and(eq(members.tenantId, tenantId), eq(members.role, 'VIEWER'), eq(members.isPending, false)));
    expect(viewer).toHaveLength(1);

    const res = await get('/api/pricing/usage', tenant.owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        plan: 'free',
        usage: [
          { feature: 'flows', used: 4, limit: 50, unlimited: false, enabled: true, percentage: 8 },
          { feature: 'activeUsers', used: 3, limit: 2500, unlimited: false, enabled: true, percentage: 0.1 },
          { feature: 'apiKeys', used: 2, limit: 10, unlimited: false, enabled: true, percentage: 20 },
          { feature: 'members', used: 3, limit: 10, unlimited: false, enabled: true, percentage: 30 },
          { feature: 'aiTokens', used: 100, limit: 0, unlimited: false, enabled: false, percentage: 100 },
          { feature: 'journeys', used: 0, limit: 0, unlimited: false, enabled: false, percentage: 0 },
          { feature: 'experiments', used: 0, limit: 0, unlimited: false, enabled: false, percentage: 0 },
        ],
      },
    });
  });

  it('reports unlimited entries with a null limit and 0 %', async () => {
    const tenant = await createTenant(t, { plan: 'enterprise' });
    await seedFlows(tenant.tenantId, 2);
    const res = await get('/api/pricing/usage', tenant.owner.headers);
    const flowsEntry = res.json().data.usage[0];
    expect(flowsEntry).toEqual({
      feature: 'flows',
      used: 2,
      limit: null,
      unlimited: true,
      enabled: true,
      percentage: 0,
    });
  });

  it('rounds percentages to one decimal and shows more than 100 % after a downgrade', async () => {
    const tenant = await createTenant(t, { plan: 'growth' });
    await seedApiKeys(tenant.tenantId, 13);
    await seedFlows(tenant.tenantId, 1);
    expect((await setPlan(tenant.tenantId, 'free')).statusCode).toBe(200);
    const usage = (await get('/api/pricing/usage', tenant.owner.headers)).json().data.usage;
    expect(usage.find((u: { feature: string }) => u.feature === 'apiKeys').percentage).toBe(130);
    expect(usage.find((u: { feature: string }) => u.feature === 'flows').percentage).toBe(2);
    await setPlan(tenant.tenantId, 'growth');
    const after = (await get('/api/pricing/usage', tenant.owner.headers)).json().data.usage;
    expect(after.find((u: { feature: string }) => u.feature === 'apiKeys').percentage).toBe(26);
    await seedEndUsers(tenant.tenantId, 1);
    const active = (await get('/api/pricing/usage', tenant.owner.headers)).json().data.usage[1];
    expect(active).toMatchObject({ feature: 'activeUsers', used: 1, percentage: 0 }); // 0.002 % → 0.0
  });
});

describe('roles', () => {
  it('lets every role read pricing and refuses the anonymous', async () => {
    const tenant = await createTenant(t);
    for (const role of ['VIEWER', 'EDITOR', 'ADMIN'] as const) {
      const actor = await tenant.as(role);
      for (const url of ['/api/pricing/plans', '/api/pricing/current', '/api/pricing/usage'])
        expect((await get(url, actor.headers)).statusCode).toBe(200);
      expect((await post('/api/pricing/check-feature', actor.headers, { feature: 'flows' })).statusCode).toBe(
        200,
      );
    }
    for (const url of ['/api/pricing/plans', '/api/pricing/current', '/api/pricing/usage'])
      expectError(await get(url, {}), 401, 'AUTH_NO_TOKEN');
    expectError(await post('/api/pricing/check-feature', {}, { feature: 'flows' }), 401, 'AUTH_NO_TOKEN');
  });
});

describe('platform admin: subscription', () => {
  it('changes the plan with immediate effect: free → growth admits the next key, growth → free refuses', async () => {
    const tenant = await createTenant(t);
    const heard: string[] = [];
    t.deps.changes.subscribe('tenant-config', (id) => heard.push(id));
    await seedApiKeys(tenant.tenantId, 8);
    await createKey(tenant);
    await createKey(tenant);
    expectError(await createKey(tenant), 403, 'PLAN_LIMIT_REACHED');

    const before = Date.now();
    const up = await setPlan(tenant.tenantId, 'growth');
    expect(up.statusCode).toBe(200);
    const data = up.json().data;
    expect(data).toEqual({
      tenantId: tenant.tenantId,
      plan: 'growth',
      status: 'active',
      currentPeriodStart: expect.any(String),
      currentPeriodEnd: expect.any(String),
      isFreePlan: false,
    });
    const start = new Date(data.currentPeriodStart);
    expect(start.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(data.currentPeriodEnd).toBe(addMonths(start, 1).toISOString());
    expect(heard).toContain(tenant.tenantId);
    expect((await get('/api/pricing/current', tenant.owner.headers)).json().data).toMatchObject({
      plan: 'growth',
      isFreePlan: false,
    });
    expect((await createKey(tenant)).statusCode).toBe(201);
    expect(
      (await post('/api/pricing/check-feature', tenant.owner.headers, { feature: 'experiments' })).json()
        .data,
    ).toMatchObject({ allowed: true });

    const down = await setPlan(tenant.tenantId, 'free');
    expect(down.json().data).toMatchObject({ plan: 'free', isFreePlan: true });
    expect(expectError(await createKey(tenant), 403, 'PLAN_LIMIT_REACHED').details).toEqual({
      feature: 'apiKeys',
      used: 11,
      limit: 10,
    });

    const read = await get(`/api/admin/tenants/${tenant.tenantId}/subscription`, admin);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ tenantId: tenant.tenantId, plan: 'free', status: 'active' });

    const audit = await db()
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.action, 'SUBSCRIPTION_CHANGED')));
    expect(audit.map((a) => a.metadata)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: 'free', to: 'growth' }),
        expect.objectContaining({ from: 'growth', to: 'free' }),
      ]),
    );
  });

  it('answers 400 at `plan` for an unknown or missing plan', async () => {
    const tenant = await createTenant(t);
    for (const payload of [{ plan: 'platinum' }, { plan: '' }, {}]) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/admin/tenants/${tenant.tenantId}/subscription`,
        headers: admin,
        payload,
      });
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { path: 'plan', message: expect.any(String) },
      ]);
    }
    expect((await get('/api/pricing/current', tenant.owner.headers)).json().data.plan).toBe('free');
  });

  it('answers 404 NOT_FOUND for an unknown or malformed tenant id', async () => {
    for (const id of [newId(), 'not-a-uuid']) {
      expectError(await setPlan(id, 'growth'), 404, 'NOT_FOUND');
      expectError(await get(`/api/admin/tenants/${id}/subscription`, admin), 404, 'NOT_FOUND');
    }
  });

  it('needs the platform token: missing → AUTH_NO_TOKEN, wrong or a user session → AUTH_INVALID_TOKEN', async () => {
    const tenant = await createTenant(t);
    const url = `/api/admin/tenants/${tenant.tenantId}/subscription`;
    expectError(await setPlan(tenant.tenantId, 'growth', {}), 401, 'AUTH_NO_TOKEN');
    expectError(await get(url, {}), 401, 'AUTH_NO_TOKEN');
    for (const headers of [{ authorization: `Bearer ${ADMIN_TOKEN}x` }, tenant.owner.headers]) {
      expectError(await setPlan(tenant.tenantId, 'growth', headers), 401, 'AUTH_INVALID_TOKEN');
      expectError(await get(url, headers), 401, 'AUTH_INVALID_TOKEN');
    }
    expect((await get('/api/pricing/current', tenant.owner.headers)).json().data.plan).toBe('free');
  });

  it('answers 401 on every admin route when PLATFORM_ADMIN_TOKEN is not configured', async () => {
    const bare = await createTestApp({ db: t.db });
    try {
      expect(bare.config.platformAdminToken).toBeUndefined();
      const tenant = await createTenant(bare);
      const url = `/api/admin/tenants/${tenant.tenantId}/subscription`;
      for (const headers of [admin, {}]) {
        const code = 'authorization' in headers ? 'AUTH_INVALID_TOKEN' : 'AUTH_NO_TOKEN';
        expectError(
          await bare.inject({ method: 'PUT', url, headers, payload: { plan: 'growth' } }),
          401,
          code,
        );
        expectError(await bare.inject({ method: 'GET', url, headers }), 401, code);
      }
    } finally {
      await bare.close();
    }
  });

  it('limits admin writes per window: the 3rd PUT of a 2/min window → 429 with Retry-After', async () => {
    const token = 'x'.repeat(32);
    const limited = await createTestApp({
      db: t.db,
      config: { platformAdminToken: token, rateLimits: { adminWrite: 2 } as never },
    });
    try {
      const tenant = await createTenant(limited);
      const windowStart = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
      limited.clock.set(windowStart + 1000);
      const put = () =>
        limited.inject({
          method: 'PUT',
          url: `/api/admin/tenants/${tenant.tenantId}/subscription`,
          headers: { authorization: `Bearer ${token}` },
          payload: { plan: 'starter' },
        });
      const first = await put();
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-limit']).toBe('2');
      expect((await put()).statusCode).toBe(200);
      const third = await put();
      expectError(third, 429, 'RATE_LIMITED');
      expect(third.headers['retry-after']).toBe('59');
      // reads are another scope (off here)
      expect(
        (
          await limited.inject({
            method: 'GET',
            url: `/api/admin/tenants/${tenant.tenantId}/subscription`,
            headers: { authorization: `Bearer ${token}` },
          })
        ).statusCode,
      ).toBe(200);
      limited.clock.set(windowStart + 61_000);
      expect((await put()).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
