import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { TenantFixture } from './factories.js';

/** Fixtures of the SDK tests, created through the real dashboard routes. */

export const SITE = '0190a000-0000-7000-8000-0000000051e0';

export async function dashboard(
  t: TestApp,
  tenant: TenantFixture,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  const res = await t.inject({
    method,
    url,
    headers: tenant.owner.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json().data;
}

export async function apiKeyOf(t: TestApp, tenant: TenantFixture): Promise<string> {
  return (await dashboard(t, tenant, 'POST', '/api/tenants/api-keys', { name: 'sdk' })).key;
}

export function sdkCall(t: TestApp, key: string) {
  return (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

export async function publishedFlow(
  t: TestApp,
  tenant: TenantFixture,
  body: Record<string, unknown> = {},
): Promise<string> {
  const flow = await dashboard(t, tenant, 'POST', '/api/flows', {
    name: 'Tour',
    siteId: SITE,
    template: 'PRODUCT_TOUR',
    steps: [{ type: 'MODAL', content: { title: 'Welcome' } }],
    ...body,
  });
  await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
  return flow.id;
}

export const tooltip = (extra: Record<string, unknown> = {}) => ({
  name: 'Tip',
  siteId: SITE,
  targetSelector: '#save',
  content: { text: 'Save here' },
  ...extra,
});

export async function publishedContent(
  t: TestApp,
  tenant: TenantFixture,
  type: string,
  body: Record<string, unknown>,
): Promise<string> {
  const item = await dashboard(t, tenant, 'POST', `/api/content/${type}`, body);
  if (item.status !== 'PUBLISHED')
    await dashboard(t, tenant, 'POST', `/api/content/${type}/${item.id}/publish`);
  return item.id;
}

export async function audience(t: TestApp, tenant: TenantFixture, ruleTree: unknown): Promise<string> {
  return (await dashboard(t, tenant, 'POST', '/api/audiences', { name: `A ${Math.random()}`, ruleTree })).id;
}
