import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { createTenant } from './helpers/factories.js';

/** Plan checks wired into modules beyond the pricing module's own tests. */
let t: TestApp;
const siteId = '0190f3a2-0000-7000-8000-0000000000bb';

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('plan enforcement across modules', () => {
  it('refuses translations and locales on a plan without the translations feature', async () => {
    const free = await createTenant(t, { plan: 'free' });
    const h = free.owner.headers;
    const locale = await t.inject({
      method: 'POST',
      url: '/api/translations/locales',
      headers: h,
      payload: { code: 'fr', name: 'French' },
    });
    expect(expectError(locale, 403, 'PLAN_FEATURE_UNAVAILABLE').details).toMatchObject({
      feature: 'translations',
      plan: 'free',
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

  it('counts a restored flow against the flows limit', async () => {
    const free = await createTenant(t, { plan: 'free' });
    const h = free.owner.headers;
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
