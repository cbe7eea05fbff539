import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, platformAdmin, publicRoute, requireRole } from '../src/platform/auth/guard.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { testRedisUrl } from './helpers/database.js';
import { createTenant, type TenantFixture } from './helpers/factories.js';
import { apiKeyOf } from './helpers/sdk.js';

/** DECISIONS §5: every scope, its headers, fixed one-minute windows, and one budget across instances. */
const ADMIN_TOKEN = 'platform-admin-token-0123456789abcdef';
const LIMITS = { global: 5, auth: 3, refresh: 4, sdk: 6, adminRead: 3, adminWrite: 2, adminCritical: 1 };

function testRoutes(app: FastifyInstance) {
  const ok = async () => ({ data: { ok: true } });
  app.get('/api/test/global', { config: { auth: publicRoute('global') } }, ok);
  app.post('/api/test/auth', { config: { auth: publicRoute('auth') } }, ok);
  app.post('/api/test/refresh', { config: { auth: publicRoute('refresh') } }, ok);
  app.get('/api/test/session', { config: { auth: requireRole('VIEWER') } }, ok);
  app.get('/api/test/sdk', { config: { auth: API_KEY } }, ok);
  app.get('/api/test/admin-read', { config: { auth: platformAdmin('read') } }, ok);
  app.put('/api/test/admin-write', { config: { auth: platformAdmin('write') } }, ok);
  app.post('/api/test/admin-critical', { config: { auth: platformAdmin('critical') } }, ok);
}

let t: TestApp;
let tenant: TenantFixture;
const WINDOW = 60_000;
let windowStart = 0;

/** Each test runs in a window of its own, pinned 10 s after its start. */
function nextWindow(app: TestApp = t) {
  windowStart = (Math.floor(Date.now() / WINDOW) + 1 + Math.floor(Math.random() * 1e6)) * WINDOW;
  app.clock.set(windowStart + 10_000);
}

beforeAll(async () => {
  t = await createTestApp({
    config: { platformAdminToken: ADMIN_TOKEN, rateLimits: LIMITS },
    beforeReady: testRoutes,
  });
  tenant = await createTenant(t);
});
afterAll(() => t.close());

async function hit(
  app: TestApp,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  headers: Record<string, string> = {},
  n = 1,
) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await app.inject({ method, url, headers }));
  return results;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe.each([
  ['global', 'GET', '/api/test/global', LIMITS.global, {}],
  ['auth', 'POST', '/api/test/auth', LIMITS.auth, {}],
  ['refresh', 'POST', '/api/test/refresh', LIMITS.refresh, {}],
  ['admin read', 'GET', '/api/test/admin-read', LIMITS.adminRead, admin],
  ['admin write', 'PUT', '/api/test/admin-write', LIMITS.adminWrite, admin],
  ['admin critical', 'POST', '/api/test/admin-critical', LIMITS.adminCritical, admin],
] as const)('the %s scope', (_name, method, url, limit, headers) => {
  it(`allows ${limit} requests a window, refuses the next with 429 and Retry-After, and resets with the window`, async () => {
    nextWindow();
    const allowed = await hit(t, method, url, headers, limit);
    allowed.forEach((res, i) => {
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe(String(limit));
      expect(res.headers['ratelimit-remaining']).toBe(String(limit - i - 1));
      expect(res.headers['ratelimit-reset']).toBe('50');
    });
    const [refused] = await hit(t, method, url, headers);
    expectError(refused!, 429, 'RATE_LIMITED');
    expect(refused!.headers['retry-after']).toBe('50');
    expect(refused!.headers['ratelimit-remaining']).toBe('0');

    t.clock.set(windowStart + WINDOW + 1);
    expect((await hit(t, method, url, headers))[0]!.statusCode).toBe(200);
  });
});

describe('scope details', () => {
  it('counts dashboard routes in the global scope by IP', async () => {
    nextWindow();
    await hit(t, 'GET', '/api/test/global', {}, LIMITS.global - 1);
    expect((await hit(t, 'GET', '/api/test/session', tenant.owner.headers))[0]!.statusCode).toBe(200);
    expectError((await hit(t, 'GET', '/api/test/session', tenant.owner.headers))[0]!, 429, 'RATE_LIMITED');
  });

  it('keys IP scopes by client address', async () => {
    nextWindow();
    for (let i = 0; i < LIMITS.auth; i++)
      await t.inject({ method: 'POST', url: '/api/test/auth', remoteAddress: '10.0.0.1' });
    expectError(
      await t.inject({ method: 'POST', url: '/api/test/auth', remoteAddress: '10.0.0.1' }),
      429,
      'RATE_LIMITED',
    );
    expect(
      (await t.inject({ method: 'POST', url: '/api/test/auth', remoteAddress: '10.0.0.2' })).statusCode,
    ).toBe(200);
  });

  it('limits SDK routes per API key, outside the global IP scope', async () => {
    nextWindow();
    const keys = [];
    for (let i = 0; i < 2; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/tenants/api-keys',
        headers: tenant.owner.headers,
        payload: { name: `k${i}` },
      });
      keys.push(res.json().data.key as string);
    }
    nextWindow();
    const first = { 'x-api-key': keys[0]! };
    const sdk = await hit(t, 'GET', '/api/test/sdk', first, LIMITS.sdk);
    expect(sdk.every((r) => r.statusCode === 200)).toBe(true);
    expect(sdk[0]!.headers['ratelimit-limit']).toBe(String(LIMITS.sdk));
    expectError((await hit(t, 'GET', '/api/test/sdk', first))[0]!, 429, 'RATE_LIMITED');
    expect((await hit(t, 'GET', '/api/test/sdk', { 'x-api-key': keys[1]! }))[0]!.statusCode).toBe(200);
    // the SDK traffic above did not touch the IP budget
    expect((await hit(t, 'GET', '/api/test/global'))[0]!.headers['ratelimit-remaining']).toBe(
      String(LIMITS.global - 1),
    );
  });

  it('refuses exactly the requests past the limit when they arrive at the same time', async () => {
    nextWindow();
    const key = { 'x-api-key': await apiKeyOf(t, tenant) };
    nextWindow();
    const burst = await Promise.all(
      Array.from({ length: LIMITS.sdk + 4 }, () =>
        t.inject({ method: 'GET', url: '/api/test/sdk', headers: key }),
      ),
    );
    expect(burst.filter((r) => r.statusCode === 200)).toHaveLength(LIMITS.sdk);
    expect(burst.filter((r) => r.statusCode === 429)).toHaveLength(4);
    const remaining = burst
      .filter((r) => r.statusCode === 200)
      .map((r) => Number(r.headers['ratelimit-remaining']));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: LIMITS.sdk }, (_, i) => i));
  });

  it('counts a limit of 100 or more (counted locally far from it) exactly up to the N+1st request', async () => {
    const big = await createTestApp({
      db: t.db,
      config: { platformAdminToken: ADMIN_TOKEN, rateLimits: { ...LIMITS, sdk: 120 } },
      beforeReady: testRoutes,
    });
    try {
      const key = { 'x-api-key': await apiKeyOf(t, tenant) };
      nextWindow(big);
      const replies = await hit(big, 'GET', '/api/test/sdk', key, 121);
      expect(replies.slice(0, 120).map((r) => Number(r.headers['ratelimit-remaining']))).toEqual(
        Array.from({ length: 120 }, (_, i) => 119 - i),
      );
      expectError(replies[120]!, 429, 'RATE_LIMITED');
    } finally {
      await big.close();
    }
  });

  it('counts failed API-key attempts against the caller IP, so keys cannot be guessed at will', async () => {
    nextWindow();
    const guess = { 'x-api-key': `wfx_${'c'.repeat(64)}` };
    for (let i = 0; i < LIMITS.global; i++) {
      expectError((await hit(t, 'GET', '/api/test/sdk', guess))[0]!, 401, 'AUTH_FAILED');
    }
    expectError((await hit(t, 'GET', '/api/test/sdk', guess))[0]!, 429, 'RATE_LIMITED');
  });

  it('counts wrong platform admin tokens against the caller IP', async () => {
    nextWindow();
    const wrong = { authorization: 'Bearer not-the-admin-token' };
    for (let i = 0; i < LIMITS.adminCritical; i++) {
      expectError((await hit(t, 'GET', '/api/test/admin-read', wrong))[0]!, 401, 'AUTH_INVALID_TOKEN');
    }
    expectError((await hit(t, 'GET', '/api/test/admin-read', wrong))[0]!, 429, 'RATE_LIMITED');
  });

  it('turns a scope off with limit 0', async () => {
    const off = await createTestApp({
      config: { rateLimits: { ...LIMITS, global: 0 } },
      beforeReady: testRoutes,
    });
    try {
      const res = await hit(off, 'GET', '/api/test/global', {}, LIMITS.global + 3);
      expect(res.every((r) => r.statusCode === 200)).toBe(true);
      expect(res[0]!.headers['ratelimit-limit']).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});

describe('auth and refresh routes also count in the global scope', () => {
  it('takes one of each budget per request; the auth scope refuses first when it is tighter', async () => {
    nextWindow();
    const allowed = await hit(t, 'POST', '/api/test/auth', {}, LIMITS.auth);
    expect(allowed.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    // the headers show the tighter scope: auth (3) over global (5)
    expect(allowed.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3']);
    expect(allowed.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    const [refused] = await hit(t, 'POST', '/api/test/auth');
    expectError(refused!, 429, 'RATE_LIMITED');
    expect(refused!.headers['ratelimit-limit']).toBe('3');
    expect(refused!.headers['retry-after']).toBe('50');
    // the four auth requests took four of the five global requests
    const [global] = await hit(t, 'GET', '/api/test/global');
    expect(global!.statusCode).toBe(200);
    expect(global!.headers['ratelimit-limit']).toBe('5');
    expect(global!.headers['ratelimit-remaining']).toBe('0');
    expectError((await hit(t, 'GET', '/api/test/global'))[0]!, 429, 'RATE_LIMITED');
  });

  it('shows whichever scope has fewer requests left, and refuses from global once it is spent', async () => {
    nextWindow();
    await hit(t, 'GET', '/api/test/global', {}, 3); // global: 2 left
    const [a, b] = await hit(t, 'POST', '/api/test/auth', {}, 2); // auth 2, 1 left; global 1, 0 left
    expect([a!.statusCode, b!.statusCode]).toEqual([200, 200]);
    expect([a!.headers['ratelimit-limit'], a!.headers['ratelimit-remaining']]).toEqual(['5', '1']);
    expect([b!.headers['ratelimit-limit'], b!.headers['ratelimit-remaining']]).toEqual(['5', '0']);
    // auth still has one left, global none
    const [refused] = await hit(t, 'POST', '/api/test/auth');
    expectError(refused!, 429, 'RATE_LIMITED');
    expect(refused!.headers['ratelimit-limit']).toBe('5');
  });

  it('with global 2 and auth 10, the 3rd auth (or refresh) call is refused by the global scope; health is not counted', async () => {
    const tight = await createTestApp({
      config: { rateLimits: { ...LIMITS, global: 2, auth: 10, refresh: 10 } },
      beforeReady: testRoutes,
    });
    try {
      for (const url of ['/api/test/auth', '/api/test/refresh']) {
        nextWindow(tight);
        // health polls never count, before or after
        for (let i = 0; i < 3; i++) {
          const health = await tight.inject({ method: 'GET', url: '/api/health' });
          expect(health.headers['ratelimit-limit']).toBeUndefined();
        }
        const ok = await hit(tight, 'POST', url, {}, 2);
        expect(ok.map((r) => r.statusCode)).toEqual([200, 200]);
        expect(ok.map((r) => r.headers['ratelimit-limit'])).toEqual(['2', '2']);
        expect(ok.map((r) => r.headers['ratelimit-remaining'])).toEqual(['1', '0']);
        const [third] = await hit(tight, 'POST', url);
        expectError(third!, 429, 'RATE_LIMITED');
        expect(third!.headers['ratelimit-limit']).toBe('2');
        expect(third!.headers['retry-after']).toBe('50');
        expectError((await hit(tight, 'GET', '/api/test/global'))[0]!, 429, 'RATE_LIMITED');
        expect((await tight.inject({ method: 'GET', url: '/api/health' })).statusCode).not.toBe(429);
      }
    } finally {
      await tight.close();
    }
  });
});

describe.runIf(testRedisUrl())('with Redis', () => {
  it('two instances on one Redis share one budget', async () => {
    const other = await createTestApp({
      db: t.db,
      redisPrefix: t.config.redisPrefix,
      config: { platformAdminToken: ADMIN_TOKEN, rateLimits: LIMITS },
      beforeReady: testRoutes,
    });
    try {
      nextWindow();
      other.clock.set(windowStart + 10_000);
      const a = await hit(t, 'GET', '/api/test/global', {}, 3);
      const b = await hit(other, 'GET', '/api/test/global', {}, 2);
      expect([...a, ...b].every((r) => r.statusCode === 200)).toBe(true);
      expect(b[1]!.headers['ratelimit-remaining']).toBe('0');
      expectError((await hit(other, 'GET', '/api/test/global'))[0]!, 429, 'RATE_LIMITED');
      expectError((await hit(t, 'GET', '/api/test/global'))[0]!, 429, 'RATE_LIMITED');
    } finally {
      await other.close();
    }
  });
});
