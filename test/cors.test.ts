import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREFLIGHT_MAX_AGE } from '../src/platform/http/cors.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { createTenant, type TenantFixture } from './helpers/factories.js';
import { apiKeyOf } from './helpers/sdk.js';

/**
 * CORS (issue 17): SDK routes and assets answer any origin without credentials; dashboard
 * routes are same-origin unless CORS_ORIGINS lists the origin, which then gets credentials.
 */
const SHOP = 'https://shop.example';
const DASHBOARD = 'https://dashboard.example';

const preflight = (t: TestApp, url: string, origin: string, method: string, headers: string) =>
  t.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

const list = (value: unknown) =>
  String(value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

describe('CORS without CORS_ORIGINS (the default)', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    key = await apiKeyOf(t, tenant);
  });
  afterAll(() => t.close());

  it.each([
    ['/api/sdk/events', 'POST', 'content-type,x-api-key,x-correlation-id'],
    ['/api/sdk/session', 'POST', 'content-type,x-api-key'],
    ['/api/sdk/identify', 'POST', 'content-type,x-api-key'],
    ['/api/sdk/config', 'GET', 'x-api-key'],
  ])(
    'answers the preflight of %s %s from any origin, cached, without credentials',
    async (url, method, headers) => {
      const res = await preflight(t, url, SHOP, method, headers);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(list(res.headers['access-control-allow-methods'])).toContain(method.toLowerCase());
      expect(list(res.headers['access-control-allow-headers'])).toEqual(
        expect.arrayContaining(['content-type', 'x-api-key', 'x-correlation-id']),
      );
      expect(res.headers['access-control-max-age']).toBe(String(PREFLIGHT_MAX_AGE));
    },
  );

  it('does not allow headers beyond content-type, x-api-key and x-correlation-id on SDK routes', async () => {
    const res = await preflight(t, '/api/sdk/events', SHOP, 'POST', 'authorization');
    expect(list(res.headers['access-control-allow-headers'])).not.toContain('authorization');
  });

  it('lets a foreign page read SDK answers, errors included, and their Retry-After and correlation id', async () => {
    const events = await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { origin: SHOP, 'x-api-key': key },
      payload: { events: [{ type: 'PAGE_VIEW' }] },
    });
    expect(events.statusCode).toBe(202);
    expect(events.headers['access-control-allow-origin']).toBe('*');
    expect(list(events.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining(['retry-after', 'x-correlation-id']),
    );
    const config = await t.inject({
      method: 'GET',
      url: '/api/sdk/config',
      headers: { origin: SHOP, 'x-api-key': key },
    });
    expect(config.statusCode).toBe(200);
    expect(config.headers['access-control-allow-origin']).toBe('*');
    const refused = await t.inject({
      method: 'POST',
      url: '/api/sdk/session',
      headers: { origin: SHOP, 'x-api-key': `wfx_${'0'.repeat(64)}` },
      payload: {},
    });
    expectError(refused, 401, 'AUTH_FAILED');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });

  it('accepts a beacon (text/plain, key in the body) from another origin: a simple request', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { origin: SHOP, 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({ events: [{ type: 'CUSTOM', name: 'left' }], _apiKey: key }),
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('lets a foreign page read the refusals made before routing (a NUL in the URL)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/sdk/config?x=%00', headers: { origin: SHOP } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('serves /sdk/* to any origin', async () => {
    const res = await t.inject({ method: 'GET', url: '/sdk/guidance.js', headers: { origin: SHOP } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps dashboard routes same-origin: no CORS headers, and a 404 to their preflight', async () => {
    const pre = await preflight(t, '/api/flows', SHOP, 'GET', 'authorization');
    expectError(pre, 404, 'NOT_FOUND');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await t.inject({
      method: 'GET',
      url: '/api/flows',
      headers: { origin: SHOP, ...tenant.owner.headers },
    });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    expect(get.headers['access-control-allow-credentials']).toBeUndefined();
    const login = await preflight(t, '/api/auth/login', SHOP, 'POST', 'content-type');
    expect(login.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('leaves same-origin and non-browser requests alone', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS with CORS_ORIGINS', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  beforeAll(async () => {
    t = await createTestApp({ config: { corsOrigins: [DASHBOARD, 'http://localhost:5173'] } });
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  it('answers a listed origin’s dashboard preflight with that origin and credentials', async () => {
    const res = await preflight(t, '/api/flows', DASHBOARD, 'PATCH', 'content-type,authorization');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(list(res.headers.vary)).toContain('origin');
    expect(list(res.headers['access-control-allow-methods'])).toEqual(
      expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']),
    );
    expect(list(res.headers['access-control-allow-headers'])).toEqual(
      expect.arrayContaining(['content-type', 'authorization', 'x-correlation-id']),
    );
    expect(res.headers['access-control-max-age']).toBe(String(PREFLIGHT_MAX_AGE));
  });

  it('lets the listed origin read dashboard answers (errors included) with credentials', async () => {
    const ok = await t.inject({
      method: 'GET',
      url: '/api/flows',
      headers: { origin: DASHBOARD, ...tenant.owner.headers },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(ok.headers['access-control-allow-credentials']).toBe('true');
    const denied = await t.inject({
      method: 'GET',
      url: '/api/flows',
      headers: { origin: 'http://localhost:5173' },
    });
    expectError(denied, 401, 'AUTH_NO_TOKEN');
    expect(denied.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('gives an unlisted origin nothing, even a near miss', async () => {
    for (const origin of [SHOP, 'https://dashboard.example.evil', 'http://dashboard.example', 'null']) {
      const res = await t.inject({
        method: 'GET',
        url: '/api/flows',
        headers: { origin, ...tenant.owner.headers },
      });
      // without Access-Control-Allow-Origin the browser withholds the answer from the page
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it('still answers SDK routes for every origin, without credentials', async () => {
    const res = await preflight(t, '/api/sdk/events', SHOP, 'POST', 'content-type,x-api-key');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('CORS and rate limits', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimits: { sdk: 2 } as never } });
    key = await apiKeyOf(t, await createTenant(t));
  });
  afterAll(() => t.close());

  it('answers preflights before any limit (they spend no budget), and exposes Retry-After on the 429', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await preflight(t, '/api/sdk/events', SHOP, 'POST', 'content-type,x-api-key')).statusCode).toBe(
        204,
      );
    }
    const send = () =>
      t.inject({
        method: 'POST',
        url: '/api/sdk/events',
        headers: { origin: SHOP, 'x-api-key': key },
        payload: { events: [{ type: 'PAGE_VIEW' }] },
      });
    expect((await send()).statusCode).toBe(202);
    expect((await send()).statusCode).toBe(202);
    const limited = await send();
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers['access-control-allow-origin']).toBe('*');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(list(limited.headers['access-control-expose-headers'])).toContain('retry-after');
  });
});
