import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeys, auditLogs } from '../../db/schema/index.js';
import { API_KEY } from '../../platform/auth/guard.js';
import { sha256 } from '../../platform/crypto.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady(app) {
      app.post(
        '/api/sdk/test-echo',
        { config: { auth: API_KEY }, schema: { body: z.object({ value: z.string() }).passthrough() } },
        async (request) => ({
          data: { body: request.body, query: request.query, tenantId: request.sdk!.tenantId },
        }),
      );
    },
  });
  acme = await createTenant(t, { name: 'Acme' });
  other = await createTenant(t);
});
afterAll(() => t.close());

async function createKey(tenant: TenantFixture, body: Record<string, unknown> = { name: 'Web' }) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/tenants/api-keys',
    headers: tenant.owner.headers,
    payload: body,
  });
  expect(res.statusCode).toBe(201);
  return res.json() as {
    data: { id: string; key: string; keyPrefix: string; expiresAt: string | null };
    warning: string;
  };
}

const sdkConfig = (headers: Record<string, string> = {}, query = '') =>
  t.inject({ method: 'GET', url: `/api/sdk/config${query}`, headers });

describe('API key management', () => {
  it('creates a wfx_ key shown once, stored only as a hash, with a 12-character prefix', async () => {
    const { data, warning } = await createKey(acme, { name: 'Production' });
    expect(data.key).toMatch(/^wfx_[0-9a-f]{64}$/);
    expect(data.keyPrefix).toBe(data.key.slice(0, 12));
    expect(data.expiresAt).toBeNull();
    expect(warning).toMatch(/only once/);
    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, data.id));
    expect(row!.keyHash).toBe(sha256(data.key));
    expect(JSON.stringify(row)).not.toContain(data.key);

    const got = await t.inject({
      method: 'GET',
      url: `/api/tenants/api-keys/${data.id}`,
      headers: acme.owner.headers,
    });
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toMatchObject({
      id: data.id,
      name: 'Production',
      keyPrefix: data.keyPrefix,
      tenantId: acme.tenantId,
    });
    expect(got.json().data.key).toBeUndefined();
    expect(got.body).not.toContain(data.key);
  });

  it('lists keys with pagination meta and never the full key', async () => {
    const { data } = await createKey(acme, { name: 'Listed' });
    const res = await t.inject({
      method: 'GET',
      url: '/api/tenants/api-keys?limit=100',
      headers: acme.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta).toMatchObject({
      page: 1,
      limit: 100,
      total: expect.any(Number),
      totalPages: expect.any(Number),
    });
    expect(body.data.map((k: { id: string }) => k.id)).toContain(data.id);
    expect(res.body).not.toContain(data.key);
  });

  it('validates name and expiresAt', async () => {
    const h = acme.owner.headers;
    for (const payload of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'a', expiresAt: 'tomorrow' },
    ]) {
      expectError(
        await t.inject({ method: 'POST', url: '/api/tenants/api-keys', headers: h, payload }),
        400,
        'VALIDATION_ERROR',
      );
    }
    const past = await t.inject({
      method: 'POST',
      url: '/api/tenants/api-keys',
      headers: h,
      payload: { name: 'old', expiresAt: '2020-01-01T00:00:00Z' },
    });
    expect(expectError(past, 400, 'VALIDATION_ERROR').details).toEqual([
      { path: 'expiresAt', message: expect.any(String) },
    ]);
  });

  it('writes API_KEY_CREATED and API_KEY_REVOKED to the audit trail', async () => {
    const { data } = await createKey(acme, { name: 'Audited' });
    await t.inject({
      method: 'DELETE',
      url: `/api/tenants/api-keys/${data.id}`,
      headers: acme.owner.headers,
    });
    const rows = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.entityId, data.id));
    expect(rows.map((r) => r.action).sort()).toEqual(['API_KEY_CREATED', 'API_KEY_REVOKED']);
    expect(rows[0]).toMatchObject({
      tenantId: acme.tenantId,
      actorId: acme.owner.userId,
      entityType: 'api_key',
    });
  });

  it('lets ADMIN and OWNER manage keys and refuses EDITOR and VIEWER', async () => {
    const admin = await acme.as('ADMIN');
    expect(
      (
        await t.inject({
          method: 'POST',
          url: '/api/tenants/api-keys',
          headers: admin.headers,
          payload: { name: 'a' },
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await t.inject({ method: 'GET', url: '/api/tenants/api-keys', headers: admin.headers })).statusCode,
    ).toBe(200);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      expectError(
        await t.inject({ method: 'GET', url: '/api/tenants/api-keys', headers: actor.headers }),
        403,
        'INSUFFICIENT_ROLE',
      );
      expectError(
        await t.inject({
          method: 'POST',
          url: '/api/tenants/api-keys',
          headers: actor.headers,
          payload: { name: 'a' },
        }),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
    expectError(await t.inject({ method: 'GET', url: '/api/tenants/api-keys' }), 401, 'AUTH_NO_TOKEN');
  });

  it("answers 404 for another tenant's key, a malformed id and an unknown id", async () => {
    const { data } = await createKey(acme);
    for (const id of [data.id, 'not-a-uuid', '01900000-0000-7000-8000-000000000000']) {
      expectError(
        await t.inject({ method: 'GET', url: `/api/tenants/api-keys/${id}`, headers: other.owner.headers }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await t.inject({
          method: 'DELETE',
          url: `/api/tenants/api-keys/${id}`,
          headers: other.owner.headers,
        }),
        404,
        'NOT_FOUND',
      );
    }
    expect((await sdkConfig({ 'x-api-key': data.key })).statusCode).toBe(200);
  });
});

describe('SDK authentication', () => {
  it('reads the key from X-API-Key, then body _apiKey, then query apiKey', async () => {
    const { data } = await createKey(acme);
    const viaHeader = await sdkConfig({ 'x-api-key': data.key });
    expect(viaHeader.statusCode).toBe(200);
    expect(viaHeader.json().data).toMatchObject({ name: 'Acme' });
    expect((await sdkConfig({}, `?apiKey=${data.key}`)).statusCode).toBe(200);
    const viaBody = await t.inject({
      method: 'POST',
      url: '/api/sdk/test-echo',
      payload: { value: 'v', _apiKey: data.key },
    });
    expect(viaBody.statusCode).toBe(200);
    expect(viaBody.json().data.tenantId).toBe(acme.tenantId);
  });

  it('strips _apiKey from the body and apiKey from the query before the handler', async () => {
    const { data } = await createKey(acme);
    const res = await t.inject({
      method: 'POST',
      url: `/api/sdk/test-echo?apiKey=${data.key}&x=1`,
      payload: { value: 'v', _apiKey: data.key },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.body).toEqual({ value: 'v' });
    expect(res.json().data.query).toEqual({ x: '1' });
  });

  it('prefers the header: a valid header wins over a bad body key', async () => {
    const { data } = await createKey(acme);
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/test-echo',
      headers: { 'x-api-key': data.key },
      payload: { value: 'v', _apiKey: 'wfx_bad' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('ignores Authorization: Bearer', async () => {
    const { data } = await createKey(acme);
    expectError(await sdkConfig({ authorization: `Bearer ${data.key}` }), 401, 'AUTH_FAILED');
    expectError(await sdkConfig({ authorization: `Bearer ${acme.owner.token}` }), 401, 'AUTH_FAILED');
  });

  it('answers 401 AUTH_FAILED for missing, malformed and unknown keys', async () => {
    expectError(await sdkConfig(), 401, 'AUTH_FAILED');
    expectError(await sdkConfig({ 'x-api-key': 'wfx_123' }), 401, 'AUTH_FAILED');
    expectError(await sdkConfig({ 'x-api-key': `wfx_${'0'.repeat(64)}` }), 401, 'AUTH_FAILED');
  });

  it('refuses a revoked key at once', async () => {
    const { data } = await createKey(acme);
    expect((await sdkConfig({ 'x-api-key': data.key })).statusCode).toBe(200);
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/tenants/api-keys/${data.id}`,
      headers: acme.owner.headers,
    });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectError(await sdkConfig({ 'x-api-key': data.key }), 401, 'AUTH_FAILED');
  });

  it('hides a revoked key from the API like a hard delete, keeping its row', async () => {
    const { data } = await createKey(acme, { name: 'Gone' });
    await sdkConfig({ 'x-api-key': data.key });
    await t.deps.apiKeys.flushLastUsed();
    const listed = async (query = '') => {
      const res = await t.inject({
        method: 'GET',
        url: `/api/tenants/api-keys?limit=100${query}`,
        headers: acme.owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { data: { id: string; revokedAt: unknown }[]; meta: { total: number } };
      expect(body.data.every((k) => k.revokedAt === null)).toBe(true);
      return body;
    };
    const before = await listed();
    expect(before.data.map((k) => k.id)).toContain(data.id);
    const del = () =>
      t.inject({ method: 'DELETE', url: `/api/tenants/api-keys/${data.id}`, headers: acme.owner.headers });
    expect((await del()).statusCode).toBe(204);

    expectError(
      await t.inject({
        method: 'GET',
        url: `/api/tenants/api-keys/${data.id}`,
        headers: acme.owner.headers,
      }),
      404,
      'NOT_FOUND',
    );
    expectError(await del(), 404, 'NOT_FOUND');
    for (const query of ['', '&includeRevoked=true']) {
      const after = await listed(query);
      expect(
        after.data.map((k) => k.id),
        query,
      ).not.toContain(data.id);
      expect(after.meta.total, query).toBe(before.meta.total - 1);
    }
    // the row stays for the audit trail, with its revocation time and last use
    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, data.id));
    expect(row!.revokedAt).toBeInstanceOf(Date);
    expect(row!.lastUsedAt).toBeInstanceOf(Date);
  });

  it('refuses an expired key', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const { data } = await createKey(acme, { name: 'short', expiresAt });
    expect(data.expiresAt).toBe(expiresAt);
    expect((await sdkConfig({ 'x-api-key': data.key })).statusCode).toBe(200);
    t.clock.set(Date.now() + 61_000);
    try {
      expectError(await sdkConfig({ 'x-api-key': data.key }), 401, 'AUTH_FAILED');
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('records lastUsedAt in a batched write, not per request', async () => {
    const { data } = await createKey(acme);
    for (let i = 0; i < 5; i++) await sdkConfig({ 'x-api-key': data.key });
    const before = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, data.id));
    expect(before[0]!.lastUsedAt).toBeNull();
    await t.deps.apiKeys.flushLastUsed();
    const after = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, data.id));
    expect(after[0]!.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe('revocation across instances', () => {
  it('takes effect on another instance within the cache TTL (at once through Redis)', async () => {
    const second = await createTestApp({ db: t.db, redisPrefix: t.config.redisPrefix });
    try {
      const { data } = await createKey(acme);
      const key = { 'x-api-key': data.key };
      expect((await second.inject({ method: 'GET', url: '/api/sdk/config', headers: key })).statusCode).toBe(
        200,
      );
      await t.inject({
        method: 'DELETE',
        url: `/api/tenants/api-keys/${data.id}`,
        headers: acme.owner.headers,
      });
      if (t.config.redisUrl) {
        // pub/sub delivery is asynchronous but quick
        await expect
          .poll(
            async () =>
              (await second.inject({ method: 'GET', url: '/api/sdk/config', headers: key })).statusCode,
            {
              timeout: 2000,
              interval: 50,
            },
          )
          .toBe(401);
      } else {
        second.clock.set(Date.now() + second.config.apiKeyCacheTtlMs + 1);
        expectError(
          await second.inject({ method: 'GET', url: '/api/sdk/config', headers: key }),
          401,
          'AUTH_FAILED',
        );
      }
    } finally {
      await second.close();
    }
  });
});
