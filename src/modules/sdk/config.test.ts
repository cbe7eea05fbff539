import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard, sdkCall } from '../../../test/helpers/sdk.js';
import { tenants } from '../../db/schema/index.js';
import { etagMatches } from '../../platform/http/static-assets.js';
import { CONFIG_TTL_MS, createConfigCache } from './config-cache.js';

const ADMIN_TOKEN = 'platform-admin-token-0123456789';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { platformAdminToken: ADMIN_TOKEN } });
});
afterAll(() => t.close());

async function setup(opts: { plan?: string } = {}) {
  const tenant = await createTenant(t, opts);
  const key = await apiKeyOf(t, tenant);
  const sdk = sdkCall(t, key);
  const config = (headers: Record<string, string> = {}) => sdk('GET', '/api/sdk/config', undefined, headers);
  return { tenant, key, sdk, config };
}

describe('GET /api/sdk/config', () => {
  it('answers name, plan, settings, plan features, locales and the default locale', async () => {
    const { tenant, config } = await setup({ plan: 'starter' });
    await dashboard(t, tenant, 'PATCH', '/api/tenants/current', { settings: { theme: 'dark' } });
    await dashboard(t, tenant, 'POST', '/api/translations/locales', {
      code: 'fr',
      name: 'Français',
      isDefault: false,
      isRtl: false,
    });
    await dashboard(t, tenant, 'POST', '/api/translations/locales', {
      code: 'ar',
      name: 'العربية',
      isDefault: false,
      isRtl: true,
    });
    const res = await config();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        name: tenant.name,
        plan: 'starter',
        settings: { theme: 'dark' },
        features: {
          flows: true,
          surveys: true,
          experiments: false,
          ai: true,
          journeys: true,
          translations: true,
        },
        locales: [
          { code: 'fr', name: 'Français', isDefault: true, isRtl: false },
          { code: 'ar', name: 'العربية', isDefault: false, isRtl: true },
        ],
        defaultLocale: 'fr',
      },
    });
  });

  it('has no locales and a null default locale for a tenant without locales', async () => {
    const { config } = await setup();
    expect((await config()).json().data).toMatchObject({
      locales: [],
      defaultLocale: null,
      plan: 'enterprise',
    });
  });

  it('sends JSON with ETag and Cache-Control, and answers 304 without a body to a matching If-None-Match', async () => {
    const { config } = await setup();
    const res = await config();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await config()).headers.etag).toBe(etag);

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const hit = await config({ 'if-none-match': header });
      expect(hit.statusCode, header).toBe(304);
      expect(hit.body).toBe('');
      expect(hit.headers.etag).toBe(etag);
      expect(hit.headers['cache-control']).toBe('private, max-age=60');
    }
    const miss = await config({ 'if-none-match': '"stale"' });
    expect(miss.statusCode).toBe(200);
    expect(miss.json().data).toBeDefined();
  });

  it('changes at once after PATCH /api/tenants/current settings', async () => {
    const { tenant, config } = await setup();
    const before = await config();
    await dashboard(t, tenant, 'PATCH', '/api/tenants/current', {
      settings: { frequency: { repeatCompleted: true } },
    });
    const after = await config();
    expect(after.json().data.settings).toEqual({ frequency: { repeatCompleted: true } });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await config({ 'if-none-match': before.headers.etag as string })).statusCode).toBe(200);
  });

  it('changes at once after a locale change', async () => {
    const { tenant, config } = await setup();
    await config();
    const en = await dashboard(t, tenant, 'POST', '/api/translations/locales', {
      code: 'en',
      name: 'English',
      isDefault: false,
      isRtl: false,
    });
    expect((await config()).json().data).toMatchObject({ defaultLocale: 'en' });
    const de = await dashboard(t, tenant, 'POST', '/api/translations/locales', {
      code: 'de',
      name: 'Deutsch',
      isDefault: false,
      isRtl: false,
    });
    await dashboard(t, tenant, 'PUT', `/api/translations/locales/${de.id}`, { isDefault: true });
    const data = (await config()).json().data;
    expect(data.defaultLocale).toBe('de');
    expect(data.locales.map((l: { code: string }) => l.code)).toEqual(['de', 'en']);
    await dashboard(t, tenant, 'DELETE', `/api/translations/locales/${en.id}`);
    expect((await config()).json().data.locales).toEqual([
      { code: 'de', name: 'Deutsch', isDefault: true, isRtl: false },
    ]);
  });

  it('changes at once after a plan change', async () => {
    const { tenant, config } = await setup({ plan: 'free' });
    expect((await config()).json().data).toMatchObject({ plan: 'free', features: { ai: false } });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/admin/tenants/${tenant.tenantId}/subscription`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { plan: 'growth' },
    });
    expect(res.statusCode).toBe(200);
    expect((await config()).json().data).toMatchObject({
      plan: 'growth',
      features: { ai: true, experiments: true },
    });
  });

  it('expires entries after 60 s even when no invalidation arrives', async () => {
    const now = Date.now();
    t.clock.set(now);
    try {
      const { tenant, config } = await setup();
      expect((await config()).json().data.name).toBe(tenant.name);
      // A change whose announcement is lost: triggers are off for this transaction (as if the
      // listening connection had been down when it committed).
      await t.deps.database.db.transaction(async (tx) => {
        await tx.execute(sql`set local session_replication_role = replica`);
        await tx
          .update(tenants)
          .set({ name: `${tenant.name} 2` })
          .where(eq(tenants.id, tenant.tenantId));
      });
      await t.deps.changes.sync();
      t.clock.set(now + CONFIG_TTL_MS - 1);
      expect((await config()).json().data.name).toBe(tenant.name);
      t.clock.set(now + CONFIG_TTL_MS + 1);
      expect((await config()).json().data.name).toBe(`${tenant.name} 2`);
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('is invalidated when the database announces a change of the config, whatever code made it', async () => {
    const { tenant, config } = await setup();
    expect((await config()).json().data.settings).toEqual({});
    // Not through a route: the trigger announces it all the same.
    await t.deps.database.db
      .update(tenants)
      .set({ settings: { x: 1 } })
      .where(eq(tenants.id, tenant.tenantId));
    await t.deps.changes.sync();
    expect((await config()).json().data.settings).toEqual({ x: 1 });
  });

  it('is invalidated at once on the instance that made a change, and on another instance', async () => {
    const { tenant, key } = await setup();
    const second = await createTestApp({ db: t.db, redisPrefix: t.config.redisPrefix });
    try {
      const onSecond = () =>
        second.inject({ method: 'GET', url: '/api/sdk/config', headers: { 'x-api-key': key } });
      expect((await onSecond()).json().data.settings).toEqual({});
      const onFirst = () =>
        t.inject({ method: 'GET', url: '/api/sdk/config', headers: { 'x-api-key': key } });
      expect((await onFirst()).json().data.settings).toEqual({});
      await dashboard(t, tenant, 'PATCH', '/api/tenants/current', { settings: { y: 2 } });
      expect((await onFirst()).json().data.settings).toEqual({ y: 2 });
      await expect
        .poll(async () => (await onSecond()).json().data.settings, { timeout: 2000 })
        .toEqual({ y: 2 });
    } finally {
      await second.close();
    }
  });

  it('loads a tenant once for concurrent misses', async () => {
    const { tenant } = await setup();
    const cache = createConfigCache({
      db: t.deps.database.db,
      changes: t.deps.changes,
      clock: () => Date.now(),
    });
    const a = cache.get(tenant.tenantId);
    const b = cache.get(tenant.tenantId);
    expect(a).toBeInstanceOf(Promise);
    expect(b).toBe(a);
    const entry = await a;
    expect(cache.get(tenant.tenantId)).toBe(entry);
    // an invalidation during a load: that load is answered but not kept
    cache.invalidate(tenant.tenantId);
    const c = cache.get(tenant.tenantId);
    cache.invalidate(tenant.tenantId);
    await c;
    expect(cache.get(tenant.tenantId)).toBeInstanceOf(Promise);
  });

  it('accepts the key as query parameter apiKey and refuses a missing or wrong key with 401', async () => {
    const { key, tenant } = await setup();
    const byQuery = await t.inject({ method: 'GET', url: `/api/sdk/config?apiKey=${key}` });
    expect(byQuery.statusCode).toBe(200);
    expectError(await t.inject({ method: 'GET', url: '/api/sdk/config' }), 401, 'AUTH_FAILED');
    expectError(
      await t.inject({
        method: 'GET',
        url: '/api/sdk/config',
        headers: { 'x-api-key': `wfx_${'a'.repeat(64)}` },
      }),
      401,
      'AUTH_FAILED',
    );
    expectError(
      await t.inject({
        method: 'GET',
        url: '/api/sdk/config',
        headers: { authorization: `Bearer ${tenant.owner.token}` },
      }),
      401,
      'AUTH_FAILED',
    );
  });
});

describe('etagMatches', () => {
  it('matches the exact tag, weak forms, lists and *, nothing else', () => {
    const etag = '"abc"';
    expect(etagMatches('"abc"', etag)).toBe(true);
    expect(etagMatches('W/"abc"', etag)).toBe(true);
    expect(etagMatches('"x", W/"abc" ,"y"', etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
    expect(etagMatches(undefined, etag)).toBe(false);
    expect(etagMatches('', etag)).toBe(false);
    expect(etagMatches('abc', etag)).toBe(false);
    expect(etagMatches('"abcd"', etag)).toBe(false);
  });
});
