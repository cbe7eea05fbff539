import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/platform/ids.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { createTenant } from './helpers/factories.js';

/** Plan checks wired into modules beyond the pricing module's own tests. */
let t: TestApp;
const siteId = '0190f3a2-0000-7000-8000-0000000000bb';

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ALL_FEATURES = {
  flows: true,
  surveys: true,
  experiments: true,
  ai: true,
  journeys: true,
  translations: true,
};
const UNLIMITED = {
  flows: null,
  activeUsers: null,
  apiKeys: null,
  members: null,
  aiTokens: null,
  journeys: null,
  experiments: null,
};

/**
 * A test-only plan row (the seeded ones are generous and all include translations), with the
 * tenant's subscription pointed at it.
 */
async function onTestPlan(
  tenantId: string,
  name: string,
  opts: { features?: Record<string, boolean>; limits?: Record<string, number | null> },
): Promise<void> {
  const features = JSON.stringify({ ...ALL_FEATURES, ...opts.features });
  const limits = JSON.stringify({ ...UNLIMITED, ...opts.limits });
  const db = t.deps.database.db;
  await db.execute(sql`
    insert into plans (id, name, features, limits) values (${newId()}, ${name}, ${features}::jsonb, ${limits}::jsonb)
    on conflict (name) do nothing`);
  await db.execute(sql`
    update subscriptions set plan_id = (select id from plans where name = ${name})
    where tenant_id = ${tenantId}`);
}

describe('plan enforcement across modules', () => {
  it('refuses translations and locales on a plan without the translations feature', async () => {
    const tenant = await createTenant(t);
    await onTestPlan(tenant.tenantId, 'test-no-translations', { features: { translations: false } });
    const h = tenant.owner.headers;
    const locale = await t.inject({
      method: 'POST',
      url: '/api/translations/locales',
      headers: h,
      payload: { code: 'fr', name: 'French', isDefault: true, isRtl: false },
    });
    expect(expectError(locale, 403, 'PLAN_FEATURE_UNAVAILABLE').details).toMatchObject({
      feature: 'translations',
      plan: 'test-no-translations',
    });
    const translation = await t.inject({
      method: 'POST',
      url: '/api/translations',
      headers: h,
      payload: { contentType: 'flow', contentId: 'x', fieldName: 'name', localeCode: 'fr', value: 'Bonjour' },
    });
    expectError(translation, 403, 'PLAN_FEATURE_UNAVAILABLE');
    const bulk = await t.inject({
      method: 'POST',
      url: '/api/translations/bulk',
      headers: h,
      payload: {
        translations: [
          { contentType: 'flow', contentId: 'x', fieldName: 'name', localeCode: 'fr', value: 'B' },
        ],
      },
    });
    expectError(bulk, 403, 'PLAN_FEATURE_UNAVAILABLE');
    // reads stay available
    expect((await t.inject({ method: 'GET', url: '/api/translations/locales', headers: h })).statusCode).toBe(
      200,
    );
  });

  it('allows translations and locales on the default free plan', async () => {
    const free = await createTenant(t, { plan: 'free' });
    const h = free.owner.headers;
    const locale = await t.inject({
      method: 'POST',
      url: '/api/translations/locales',
      headers: h,
      payload: { code: 'fr', name: 'French', isDefault: true, isRtl: false },
    });
    expect(locale.statusCode).toBe(201);
    const translation = await t.inject({
      method: 'POST',
      url: '/api/translations',
      headers: h,
      payload: { contentType: 'flow', contentId: 'x', fieldName: 'name', localeCode: 'fr', value: 'Bonjour' },
    });
    expect(translation.statusCode).toBe(201);
  });

  it('counts a restored flow against the flows limit', async () => {
    const tenant = await createTenant(t);
    await onTestPlan(tenant.tenantId, 'test-small', { limits: { flows: 5 } });
    const h = tenant.owner.headers;
    const create = () =>
      t.inject({
        method: 'POST',
        url: '/api/flows',
        headers: h,
        payload: { name: 'F', siteId, template: 'CUSTOM' },
      });
    const first = (await create()).json().data.id;
    await t.inject({ method: 'POST', url: `/api/flows/${first}/archive`, headers: h });
    for (let i = 0; i < 5; i++) expect((await create()).statusCode).toBe(201);
    const restored = await t.inject({ method: 'POST', url: `/api/flows/${first}/restore`, headers: h });
    expect(expectError(restored, 403, 'PLAN_LIMIT_REACHED').details).toEqual({
      feature: 'flows',
      used: 5,
      limit: 5,
    });
    const patched = await t.inject({
      method: 'PATCH',
      url: `/api/flows/${first}`,
      headers: h,
      payload: { status: 'DRAFT' },
    });
    expectError(patched, 403, 'PLAN_LIMIT_REACHED');
  });
});
