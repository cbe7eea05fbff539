import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/db/schema/index.js';
import type { RoutePolicy } from '../src/platform/auth/guard.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { type Actor, createTenant } from './helpers/factories.js';

/**
 * The shared security suite: walks EVERY /api route the app registers and checks its declared
 * policy holds — no credentials, wrong credentials, and a role one step too low are refused
 * before any handler runs. Per-module tests cover the other-tenant 404s with real ids.
 */
let t: TestApp;
let routes: RoutePolicy[];
const actors = {} as Record<Role, Actor>;
const RANK: Role[] = ['VIEWER', 'EDITOR', 'ADMIN', 'OWNER'];
const UNKNOWN_ID = '01900000-0000-7000-8000-00000000dead';

beforeAll(async () => {
  t = await createTestApp({ config: { platformAdminToken: 'security-suite-admin-token-0123456789' } });
  routes = t.app.routePolicies;
  const tenant = await createTenant(t);
  actors.OWNER = tenant.owner;
  for (const role of ['VIEWER', 'EDITOR', 'ADMIN'] as const) actors[role] = await tenant.as(role);
});
afterAll(() => t.close());

const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, UNKNOWN_ID).replace(':type', 'tooltips');
const call = (r: RoutePolicy, headers: Record<string, string>) =>
  t.inject({
    method: r.method as 'GET',
    url: concrete(r.url),
    headers,
    payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : {},
  });

describe('every /api route', () => {
  it('declares a policy (the guard refuses to start otherwise) and the app has many', () => {
    expect(routes.length).toBeGreaterThan(60);
  });

  it('is documented in the OpenAPI document with a response schema', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const r of routes) {
      const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.url} missing from /docs/json`).toBeDefined();
      expect(Object.keys(op.responses ?? {}), `${r.method} ${r.url} has no responses`).not.toHaveLength(0);
    }
  });

  it('refuses dashboard routes without a token, with a bad token, and below the required role', async () => {
    const session = routes.filter((r) => r.policy.kind === 'session');
    expect(session.length).toBeGreaterThan(40);
    for (const r of session) {
      expectError(await call(r, {}), 401, 'AUTH_NO_TOKEN');
      expectError(await call(r, { authorization: 'Bearer not-a-jwt' }), 401, 'AUTH_INVALID_TOKEN');
      expectError(await call(r, { 'x-api-key': `wfx_${'a'.repeat(64)}` }), 401, 'AUTH_NO_TOKEN');
      if (r.policy.kind !== 'session') continue;
      const required = RANK.indexOf(r.policy.role);
      if (required > 0) {
        const below = actors[RANK[required - 1]!];
        const res = await call(r, below.headers);
        expect({
          route: `${r.method} ${r.url}`,
          status: res.statusCode,
          code: res.json().error?.code,
        }).toEqual({
          route: `${r.method} ${r.url}`,
          status: 403,
          code: 'INSUFFICIENT_ROLE',
        });
      }
      if (r.url === '/api/auth/logout') continue; // it would end the actor's session for the routes after it
      const allowed = await call(r, actors[r.policy.role].headers);
      expect([401, 403], `${r.method} ${r.url} refused its own role`).not.toContain(allowed.statusCode);
    }
  });

  it('refuses SDK routes without a key and with an unknown key, and ignores Bearer tokens', async () => {
    const sdk = routes.filter((r) => r.policy.kind === 'apiKey');
    expect(sdk.length).toBeGreaterThanOrEqual(2);
    for (const r of sdk) {
      expectError(await call(r, {}), 401, 'AUTH_FAILED');
      expectError(await call(r, { 'x-api-key': `wfx_${'b'.repeat(64)}` }), 401, 'AUTH_FAILED');
      expectError(await call(r, actors.OWNER.headers), 401, 'AUTH_FAILED');
    }
  });

  it('refuses platform admin routes without the platform token, and with a user session', async () => {
    const admin = routes.filter((r) => r.policy.kind === 'platformAdmin');
    expect(admin.length).toBeGreaterThanOrEqual(1);
    for (const r of admin) {
      expectError(await call(r, {}), 401, 'AUTH_NO_TOKEN');
      expectError(await call(r, actors.OWNER.headers), 401, 'AUTH_INVALID_TOKEN');
    }
  });
});
