import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AiTestApp, configureAi, createAiTestApp } from '../../../test/helpers/ai.js';
import { expectError } from '../../../test/helpers/app.js';
import { auditEntries, callAs, createTenant } from '../../../test/helpers/factories.js';
import { FAKE_VALID_KEY } from '../../../test/helpers/fake-ai-provider.js';
import { aiConfigs } from '../../db/schema/index.js';

let env: AiTestApp;
beforeAll(async () => {
  env = await createAiTestApp();
});
afterAll(() => env.close());
beforeEach(() => {
  env.fake.requests.length = 0;
});

const OTHER_KEY = 'sk-other-valid-key-98765432109876LAST';

describe('GET /api/ai-config', () => {
  it('answers null before anything is configured, to every role', async () => {
    const tenant = await createTenant(env.t);
    const viewer = await tenant.as('VIEWER');
    const res = await callAs(env.t, viewer, 'GET', '/api/ai-config');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: null });
  });
});

describe('POST /api/ai-config', () => {
  it.each([
    ['OPENAI', 'openai', 'authorization', `Bearer ${FAKE_VALID_KEY}`],
    ['CLAUDE', 'anthropic', 'x-api-key', FAKE_VALID_KEY],
    ['GEMINI', 'gemini', 'x-goog-api-key', FAKE_VALID_KEY],
  ] as const)(
    'verifies a %s key with the provider, stores it encrypted and answers it masked',
    async (provider, kind, header, value) => {
      const tenant = await createTenant(env.t);
      const res = await callAs(env.t, tenant, 'POST', '/api/ai-config', { provider, apiKey: FAKE_VALID_KEY });
      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data).toEqual({
        id: expect.any(String),
        tenantId: tenant.tenantId,
        provider,
        model: null,
        maskedKey: 'sk-...WXYZ',
        isEnabled: true,
        lastVerifiedAt: expect.any(String),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(res.body).not.toContain(FAKE_VALID_KEY);
      const [verification] = env.fake.callsOf('models', kind);
      expect(verification!.headers[header]).toBe(value);

      const [row] = await env.t.deps.database.db
        .select()
        .from(aiConfigs)
        .where(eq(aiConfigs.tenantId, tenant.tenantId));
      expect(row!.encryptedKey).not.toContain(FAKE_VALID_KEY);
      expect(env.t.deps.encryptor.decrypt(row!.encryptedKey)).toBe(FAKE_VALID_KEY);

      const read = await callAs(env.t, await tenant.as('VIEWER'), 'GET', '/api/ai-config');
      expect(read.json().data).toEqual(data);
    },
  );

  it('replaces the configuration (200), keeps its on/off state, and audits create then update', async () => {
    const tenant = await createTenant(env.t);
    const first = await configureAi(env.t, tenant, 'OPENAI');
    await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: false });
    env.fake.validKeys.add(OTHER_KEY);
    const res = await callAs(env.t, tenant, 'POST', '/api/ai-config', {
      provider: 'GEMINI',
      apiKey: OTHER_KEY,
      model: 'gemini-2.5-pro',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: first.id,
      provider: 'GEMINI',
      model: 'gemini-2.5-pro',
      maskedKey: 'sk-...LAST',
      isEnabled: false,
    });
    const entries = await auditEntries(env.t, tenant.tenantId);
    const actions = entries.map((e) => e.action).filter((a) => a.startsWith('AI_CONFIG'));
    expect(actions).toEqual(['AI_CONFIG_CREATED', 'AI_CONFIG_UPDATED', 'AI_CONFIG_UPDATED']);
    expect(entries.at(-1)!.metadata).toMatchObject({
      provider: 'GEMINI',
      previousProvider: 'OPENAI',
      keyChanged: true,
    });
    const audit = JSON.stringify(entries);
    expect(audit).not.toContain(FAKE_VALID_KEY);
    expect(audit).not.toContain(OTHER_KEY);
  });

  it('refuses a key the provider rejects with 400 AI_KEY_INVALID and stores nothing', async () => {
    const tenant = await createTenant(env.t);
    for (const provider of ['OPENAI', 'CLAUDE', 'GEMINI']) {
      const res = await callAs(env.t, tenant, 'POST', '/api/ai-config', {
        provider,
        apiKey: 'sk-not-a-real-key-000000',
      });
      expectError(res, 400, 'AI_KEY_INVALID');
      expect(res.body).not.toContain('sk-not-a-real-key-000000');
    }
    expect((await callAs(env.t, tenant, 'GET', '/api/ai-config')).json()).toEqual({ data: null });
    expect((await auditEntries(env.t, tenant.tenantId)).filter((e) => e.action.startsWith('AI_'))).toEqual(
      [],
    );
  });

  it('answers 500 EXTERNAL_SERVICE_ERROR when the provider keeps failing, after retrying, and stores nothing', async () => {
    const tenant = await createTenant(env.t);
    env.fake.enqueue('models', { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    const res = await callAs(env.t, tenant, 'POST', '/api/ai-config', {
      provider: 'OPENAI',
      apiKey: FAKE_VALID_KEY,
    });
    expectError(res, 500, 'EXTERNAL_SERVICE_ERROR');
    expect(res.json().error.category).toBe('EXTERNAL_SERVICE');
    expect(env.fake.callsOf('models')).toHaveLength(4);
    expect((await callAs(env.t, tenant, 'GET', '/api/ai-config')).json()).toEqual({ data: null });
  });

  it('validates the body with dotted paths', async () => {
    const tenant = await createTenant(env.t);
    const bad = [
      [{ apiKey: FAKE_VALID_KEY }, 'provider'],
      [{ provider: 'MISTRAL', apiKey: FAKE_VALID_KEY }, 'provider'],
      [{ provider: 'OPENAI' }, 'apiKey'],
      [{ provider: 'OPENAI', apiKey: 'short' }, 'apiKey'],
      [{ provider: 'OPENAI', apiKey: 'sk-é€ü-not-ascii-1234' }, 'apiKey'],
      [{ provider: 'OPENAI', apiKey: 'sk-with space-123456' }, 'apiKey'],
      [{ provider: 'OPENAI', apiKey: FAKE_VALID_KEY, model: '../models/x' }, 'model'],
    ] as const;
    for (const [body, path] of bad) {
      const err = expectError(
        await callAs(env.t, tenant, 'POST', '/api/ai-config', body),
        400,
        'VALIDATION_ERROR',
      );
      expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
    expect(env.fake.callsOf('models')).toHaveLength(0);
  });

  it('is for OWNER and ADMIN: an EDITOR is refused before any provider call', async () => {
    const tenant = await createTenant(env.t);
    const admin = await tenant.as('ADMIN');
    expect(
      (await callAs(env.t, admin, 'POST', '/api/ai-config', { provider: 'OPENAI', apiKey: FAKE_VALID_KEY }))
        .statusCode,
    ).toBe(201);
    const editor = await tenant.as('EDITOR');
    for (const [method, url, body] of [
      ['POST', '/api/ai-config', { provider: 'OPENAI', apiKey: FAKE_VALID_KEY }],
      ['POST', '/api/ai-config/toggle', { enabled: false }],
      ['DELETE', '/api/ai-config', undefined],
    ] as const) {
      expectError(await callAs(env.t, editor, method, url, body), 403, 'INSUFFICIENT_ROLE');
    }
    expect(env.fake.callsOf('models')).toHaveLength(1);
  });

  it('needs the plan’s ai feature (403 PLAN_FEATURE_UNAVAILABLE), without calling the provider', async () => {
    const tenant = await createTenant(env.t, { plan: 'free' });
    const err = expectError(
      await callAs(env.t, tenant, 'POST', '/api/ai-config', { provider: 'OPENAI', apiKey: FAKE_VALID_KEY }),
      403,
      'PLAN_FEATURE_UNAVAILABLE',
    );
    expect(err.details).toMatchObject({ feature: 'ai' });
    expect(env.fake.callsOf('models')).toHaveLength(0);
  });
});

describe('POST /api/ai-config/toggle', () => {
  it('turns AI off and on, keeping the configuration; a no-op writes no audit row', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant);
    const off = await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().data).toMatchObject({ isEnabled: false, maskedKey: 'sk-...WXYZ' });
    await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: false });
    const on = await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: true });
    expect(on.json().data.isEnabled).toBe(true);
    const toggles = (await auditEntries(env.t, tenant.tenantId, { action: 'AI_CONFIG_UPDATED' })).map(
      (e) => e.metadata,
    );
    expect(toggles).toEqual([{ isEnabled: false }, { isEnabled: true }]);
  });

  it('answers 400 AI_NOT_CONFIGURED without a configuration, and 400 on a bad body', async () => {
    const tenant = await createTenant(env.t);
    expectError(
      await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: true }),
      400,
      'AI_NOT_CONFIGURED',
    );
    const err = expectError(
      await callAs(env.t, tenant, 'POST', '/api/ai-config/toggle', { enabled: 'yes' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.details).toEqual([expect.objectContaining({ path: 'enabled' })]);
  });
});

describe('DELETE /api/ai-config', () => {
  it('removes the configuration and its key (204), audits it, then answers 404', async () => {
    const tenant = await createTenant(env.t);
    const config = await configureAi(env.t, tenant);
    const res = await callAs(env.t, tenant, 'DELETE', '/api/ai-config');
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await callAs(env.t, tenant, 'GET', '/api/ai-config')).json()).toEqual({ data: null });
    const rows = await env.t.deps.database.db
      .select()
      .from(aiConfigs)
      .where(eq(aiConfigs.tenantId, tenant.tenantId));
    expect(rows).toEqual([]);
    const [deleted] = await auditEntries(env.t, tenant.tenantId, { action: 'AI_CONFIG_DELETED' });
    expect(deleted).toMatchObject({ entityId: config.id, metadata: { provider: 'OPENAI' } });
    expectError(await callAs(env.t, tenant, 'DELETE', '/api/ai-config'), 404, 'NOT_FOUND');
  });
});

describe('tenant isolation', () => {
  it('another tenant neither reads, toggles nor removes the configuration', async () => {
    const a = await createTenant(env.t);
    const b = await createTenant(env.t);
    await configureAi(env.t, a);
    expect((await callAs(env.t, b, 'GET', '/api/ai-config')).json()).toEqual({ data: null });
    expectError(
      await callAs(env.t, b, 'POST', '/api/ai-config/toggle', { enabled: false }),
      400,
      'AI_NOT_CONFIGURED',
    );
    expectError(await callAs(env.t, b, 'DELETE', '/api/ai-config'), 404, 'NOT_FOUND');
    expect((await callAs(env.t, a, 'GET', '/api/ai-config')).json().data).toMatchObject({ isEnabled: true });
  });
});

describe('the key never leaves encrypted', () => {
  it('appears in no log line of the whole sequence, failures included', async () => {
    const tenant = await createTenant(env.t);
    env.fake.enqueue('models', { status: 500 });
    await configureAi(env.t, tenant);
    await callAs(env.t, tenant, 'POST', '/api/ai-config', {
      provider: 'CLAUDE',
      apiKey: 'sk-rejected-key-1234567890',
    });
    env.fake.enqueue('models', { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    await callAs(env.t, tenant, 'POST', '/api/ai-config', { provider: 'OPENAI', apiKey: FAKE_VALID_KEY });
    const logs = env.logLines.join('\n');
    expect(logs).toContain('AI provider call failed');
    expect(logs).not.toContain(FAKE_VALID_KEY);
    expect(logs).not.toContain('sk-rejected-key-1234567890');
  });
});
