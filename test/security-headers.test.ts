import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { cookieOf, createTenant, type TenantFixture, uniqueEmail } from './helpers/factories.js';
import { apiKeyOf } from './helpers/sdk.js';

/** Security headers of every kind of answer (issue 17): helmet's, configured for an API. */

let t: TestApp;
let acme: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });

function expectApiHeaders(res: LightMyRequestResponse) {
  expect(res.headers, `${res.statusCode} ${res.body.slice(0, 100)}`).toMatchObject({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
  });
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.headers['strict-transport-security']).toBeUndefined();
  expect(res.headers['x-powered-by']).toBeUndefined();
}

describe('API answers', () => {
  it('carry nosniff, a frame policy, Referrer-Policy and a CSP that loads nothing, errors included', async () => {
    const answers = [
      await get('/api/health'),
      await get('/api/flows', acme.owner.headers),
      await get('/api/flows'), // 401
      await get('/api/flows/unknown', acme.owner.headers), // 404 of the route
      await get('/api/nowhere'), // 404 of the router
      await get('/api/flows/%ff'), // routing error
      await t.inject({ method: 'POST', url: '/api/auth/login', payload: '{"x":' }), // parse error
      await get('/api/health?x=%00'), // refused on the request edge
    ];
    for (const res of answers) expectApiHeaders(res);
  });

  it('are never stored by caches (no-store), except the SDK config with its own caching', async () => {
    for (const res of [
      await get('/api/health'),
      await get('/api/flows', acme.owner.headers),
      await get('/api/flows'),
    ]) {
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const key = await apiKeyOf(t, acme);
    const config = await get('/api/sdk/config', { 'x-api-key': key });
    expect(config.statusCode).toBe(200);
    expect(config.headers['cache-control']).toBe('private, max-age=60');
    expect(config.headers.etag).toBeDefined();
  });

  it('marks every answer that carries a token no-store', async () => {
    const email = uniqueEmail();
    const register = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password: 'a-good-password', companyName: `Co ${email}` },
    });
    expect(register.statusCode).toBe(201);
    const login = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'a-good-password' },
    });
    const refresh = await t.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      cookies: { refresh_token: cookieOf(login, 'refresh_token')!.value },
    });
    const apiKey = await t.inject({
      method: 'POST',
      url: '/api/tenants/api-keys',
      headers: acme.owner.headers,
      payload: { name: 'k' },
    });
    const link = await t.inject({
      method: 'POST',
      url: '/api/tenants/invites/link',
      headers: acme.owner.headers,
      payload: { role: 'VIEWER' },
    });
    for (const res of [register, login, refresh, apiKey, link]) {
      expect(res.statusCode, res.body).toBeLessThan(300);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('give SDK answers only what matters to a fetch() of JSON: nosniff, a CSP that loads and frames nothing, no referrer', async () => {
    const key = await apiKeyOf(t, acme);
    for (const res of [await get('/api/sdk/config', { 'x-api-key': key }), await get('/api/sdk/config')]) {
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none';frame-ancestors 'none'",
        'cross-origin-resource-policy': 'cross-origin',
      });
      for (const pageHeader of [
        'x-frame-options',
        'x-xss-protection',
        'x-dns-prefetch-control',
        'cross-origin-opener-policy',
      ])
        expect(res.headers[pageHeader]).toBeUndefined();
    }
  });

  it('let other origins load SDK answers (Cross-Origin-Resource-Policy), not dashboard ones', async () => {
    expect((await get('/api/sdk/config')).headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect((await get('/api/flows', acme.owner.headers)).headers['cross-origin-resource-policy']).toBe(
      'same-origin',
    );
  });
});

describe('HSTS', () => {
  it('is sent only when cookies are Secure (COOKIE_SECURE=true: the deployment is HTTPS)', async () => {
    const secure = await createTestApp({ config: { cookieSecure: true } });
    try {
      const res = await secure.inject({ method: 'GET', url: '/api/health' });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
    expect((await get('/api/health')).headers['strict-transport-security']).toBeUndefined();
  });
});

describe('/docs (Swagger UI)', () => {
  it('still works: its page, scripts and the document load, under a CSP that allows only its own', async () => {
    const page = await get('/docs/');
    expect(page.statusCode).toBe(200);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // every script and stylesheet the page names is served from here
    const assets = [...page.body.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      const res = await get(`/docs/${asset}`);
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/); // no inline script the CSP would block
    expect((await get('/docs/json')).statusCode).toBe(200);
  });
});
