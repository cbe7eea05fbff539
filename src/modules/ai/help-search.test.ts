import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AiTestApp, configureAi, createAiTestApp } from '../../../test/helpers/ai.js';
import { expectError } from '../../../test/helpers/app.js';
import { callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, sdkCall } from '../../../test/helpers/sdk.js';
import { aiTokenUsage } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { excerptOf } from './help-search.js';

let env: AiTestApp;
beforeAll(async () => {
  env = await createAiTestApp();
});
afterAll(() => env.close());
beforeEach(() => {
  env.fake.requests.length = 0;
});

const SEARCH = '/api/sdk/knowledge-base';

async function helpCenter(): Promise<{ tenant: TenantFixture; key: string }> {
  const tenant = await createTenant(env.t);
  await configureAi(env.t, tenant);
  for (const article of [
    {
      title: 'Reset a forgotten password',
      content:
        '## Steps\n\nChoose **Forgot password?** on the [sign-in page](https://x.test/signin) and follow the link.',
      category: 'Account',
      metadata: { url: 'https://help.example.com/reset-password' },
    },
    {
      title: 'Invite teammates',
      content: 'Admins invite people from Settings, Members, Invite. Invitations expire after 7 days.',
      metadata: { url: 'javascript:alert(1)' },
    },
  ]) {
    const res = await callAs(env.t, tenant, 'POST', '/api/ai/knowledge-base', article);
    expect(res.statusCode, res.body).toBe(201);
  }
  return { tenant, key: await apiKeyOf(env.t, tenant) };
}

describe('GET /api/sdk/knowledge-base (self-help search)', () => {
  it('answers the relevant articles with a plain-text excerpt and a safe url, without a provider call', async () => {
    const { key } = await helpCenter();
    const res = await sdkCall(env.t, key)('GET', `${SEARCH}?q=${encodeURIComponent('forgot my password')}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      {
        id: expect.any(String),
        title: 'Reset a forgotten password',
        excerpt: 'Steps Choose Forgot password? on the sign-in page and follow the link.',
        category: 'Account',
        url: 'https://help.example.com/reset-password',
      },
    ]);
    const invite = await sdkCall(env.t, key)('GET', `${SEARCH}?q=invite+teammates`);
    expect(invite.json().data).toMatchObject([{ title: 'Invite teammates', category: null, url: null }]);
    // Neither an answer nor an embedding of the query: only article embeddings may run meanwhile.
    expect(env.fake.callsOf('chat')).toHaveLength(0);
    expect(env.fake.requests.filter((r) => r.text.includes('forgot my password'))).toHaveLength(0);
  });

  it('answers at most `limit` articles, best first', async () => {
    const { tenant, key } = await helpCenter();
    for (const title of ['Password rules', 'Change your password', 'Password managers'])
      await callAs(env.t, tenant, 'POST', '/api/ai/knowledge-base', {
        title,
        content: `About passwords: ${title}.`,
      });
    const all = await sdkCall(env.t, key)('GET', `${SEARCH}?q=password`);
    expect(all.json().data.length).toBeGreaterThanOrEqual(4);
    const two = await sdkCall(env.t, key)('GET', `${SEARCH}?q=password&limit=2`);
    expect(two.json().data.map((a: { id: string }) => a.id)).toEqual(
      all
        .json()
        .data.slice(0, 2)
        .map((a: { id: string }) => a.id),
    );
  });

  it('answers an empty list when nothing is relevant', async () => {
    const { key } = await helpCenter();
    const res = await sdkCall(env.t, key)('GET', `${SEARCH}?q=quarterly+invoices`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [] });
  });

  it('reads only the key’s tenant articles', async () => {
    await helpCenter();
    const other = await createTenant(env.t);
    await configureAi(env.t, other);
    const res = await sdkCall(env.t, await apiKeyOf(env.t, other))('GET', `${SEARCH}?q=forgot+password`);
    expect(res.json()).toEqual({ data: [] });
  });

  it('needs the ai feature, a configured and enabled provider, but no tokens left', async () => {
    const free = await createTenant(env.t, { plan: 'free' });
    expectError(
      await sdkCall(env.t, await apiKeyOf(env.t, free))('GET', `${SEARCH}?q=password`),
      403,
      'PLAN_FEATURE_UNAVAILABLE',
    );
    const tenant = await createTenant(env.t, { plan: 'starter' });
    const key = await apiKeyOf(env.t, tenant);
    expectError(await sdkCall(env.t, key)('GET', `${SEARCH}?q=password`), 400, 'AI_NOT_CONFIGURED');
    await configureAi(env.t, tenant);
    await callAs(env.t, tenant, 'POST', '/api/ai/knowledge-base', {
      title: 'Password help',
      content: 'Reset it.',
    });
    await env.t.deps.database.db
      .insert(aiTokenUsage)
      .values({ id: newId(), tenantId: tenant.tenantId, tokens: 10_000_000, createdAt: new Date() });
    expect((await sdkCall(env.t, key)('GET', `${SEARCH}?q=password`)).json().data).toHaveLength(1);
    await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: false });
    expectError(await sdkCall(env.t, key)('GET', `${SEARCH}?q=password`), 403, 'AI_DISABLED');
  });

  it('refuses a missing key, an empty query and a limit out of range', async () => {
    const { key } = await helpCenter();
    expectError(await env.t.inject({ method: 'GET', url: `${SEARCH}?q=password` }), 401, 'AUTH_FAILED');
    expectError(await sdkCall(env.t, key)('GET', `${SEARCH}?q=%20`), 400, 'VALIDATION_ERROR');
    expectError(await sdkCall(env.t, key)('GET', SEARCH), 400, 'VALIDATION_ERROR');
    expectError(await sdkCall(env.t, key)('GET', `${SEARCH}?q=password&limit=11`), 400, 'VALIDATION_ERROR');
  });

  it('answers a CORS preflight from a customer’s origin', async () => {
    const res = await env.t.inject({
      method: 'OPTIONS',
      url: `${SEARCH}?q=x`,
      headers: {
        origin: 'https://customer.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('excerptOf', () => {
  it('flattens markdown and cuts long text at a word with an ellipsis', () => {
    expect(excerptOf('# Title\n\n**bold** and `code`')).toBe('Title bold and code');
    const long = excerptOf('word '.repeat(100), 42);
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(43);
    expect(long).not.toMatch(/wor…$/);
  });
});
