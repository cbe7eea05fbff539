import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { tenants } from '../../db/schema/index.js';
import { randomHex } from '../../platform/crypto.js';
import { TENANT_CONFIG_TOPIC } from '../sdk/config-cache.js';
import { MAX_SETTINGS_BYTES, mergeSettings } from './tenant-service.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const getCurrent = (headers: Record<string, string>) =>
  t.inject({ method: 'GET', url: '/api/tenants/current', headers });
const patchCurrent = (headers: Record<string, string>, payload: unknown, remoteAddress?: string) =>
  t.inject({
    method: 'PATCH',
    url: '/api/tenants/current',
    headers,
    payload: payload as Record<string, unknown>,
    ...(remoteAddress ? { remoteAddress } : {}),
  });

const settingsAudit = (tenant: TenantFixture) =>
  auditEntries(t, tenant.tenantId, { action: 'TENANT_SETTINGS_UPDATED' });

describe('mergeSettings', () => {
  it('replaces given keys, removes null ones, keeps the rest and reports real changes only', () => {
    const { merged, set, removed } = mergeSettings(
      { a: 1, b: { x: 1 }, c: 'keep', d: true },
      { a: 2, b: { x: 1 }, d: null, e: [1], missing: null },
    );
    expect(merged).toEqual({ a: 2, b: { x: 1 }, c: 'keep', e: [1] });
    expect(set).toEqual(['a', 'e']);
    expect(removed).toEqual(['d']);
  });

  it('sees the same nested value with its keys in another order as no change', () => {
    const stored = { theme: { color: 'blue', font: { family: 'serif', size: 12 } }, tags: ['a', 'b'] };
    const again = { theme: { font: { size: 12, family: 'serif' }, color: 'blue' }, tags: ['a', 'b'] };
    expect(mergeSettings(stored, again)).toEqual({ merged: stored, set: [], removed: [] });
    // Array order still matters.
    expect(mergeSettings(stored, { tags: ['b', 'a'] }).set).toEqual(['tags']);
  });
});

describe('GET /api/tenants/current', () => {
  it('answers the caller’s tenant to every role', async () => {
    const acme = await createTenant(t, { name: `Acme ${randomHex(3)}` });
    for (const actor of [
      acme.owner,
      ...(await Promise.all(['ADMIN', 'EDITOR', 'VIEWER'].map((r) => acme.as(r as 'ADMIN')))),
    ]) {
      const res = await getCurrent(actor.headers);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({
        id: acme.tenantId,
        name: acme.name,
        slug: expect.stringMatching(/^acme-/),
        settings: {},
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    }
    expectError(await t.inject({ method: 'GET', url: '/api/tenants/current' }), 401, 'AUTH_NO_TOKEN');
  });

  it('never shows another tenant', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    expect((await getCurrent(b.owner.headers)).json().data.id).toBe(b.tenantId);
    expect((await getCurrent(a.owner.headers)).json().data.id).toBe(a.tenantId);
  });
});

describe('PATCH /api/tenants/current', () => {
  it('renames and merges settings shallowly (null removes a key), audits and publishes tenant-config', async () => {
    const acme = await createTenant(t);
    // The tenant's creation (its subscription row) announces a change too: heard before counting.
    await t.deps.changes.sync();
    const heard: string[] = [];
    t.deps.changes.subscribe(TENANT_CONFIG_TOPIC, (id) => heard.push(id));

    const first = await patchCurrent(acme.owner.headers, {
      settings: { theme: { color: 'blue' }, locale: 'en', beta: true },
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().data.settings).toEqual({ theme: { color: 'blue' }, locale: 'en', beta: true });

    const admin = await acme.as('ADMIN');
    const newName = `Renamed ${randomHex(4)}`;
    const res = await patchCurrent(
      admin.headers,
      { name: `  ${newName} `, settings: { theme: { font: 'serif' }, beta: null, extra: 1 }, unknown: 'x' },
      '203.0.113.7',
    );
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      id: acme.tenantId,
      name: newName,
      settings: { theme: { font: 'serif' }, locale: 'en', extra: 1 },
    });
    expect(data.settings).not.toHaveProperty('beta');
    expect(new Date(data.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(data.createdAt).getTime());
    expect((await getCurrent(acme.owner.headers)).json().data).toEqual(data);

    await expect.poll(() => heard.filter((id) => id === acme.tenantId).length).toBe(2);

    const rows = await settingsAudit(acme);
    const entry = rows.find((r) => r.actorId === admin.userId)!;
    expect(entry).toMatchObject({
      tenantId: acme.tenantId,
      entityType: 'tenant',
      entityId: acme.tenantId,
      ipAddress: '203.0.113.7',
      metadata: {
        name: { from: acme.name, to: newName },
        settings: { set: ['theme', 'extra'], removed: ['beta'] },
      },
    });
    expect(TENANT_CONFIG_TOPIC).toBe('tenant-config');
  });

  it('writes nothing and publishes nothing for a patch that changes nothing', async () => {
    const acme = await createTenant(t);
    await patchCurrent(acme.owner.headers, { settings: { a: 1 } });
    const heard: string[] = [];
    t.deps.changes.subscribe(TENANT_CONFIG_TOPIC, (id) => heard.push(id));
    for (const payload of [{}, { name: acme.name }, { settings: { a: 1, gone: null } }]) {
      const res = await patchCurrent(acme.owner.headers, payload);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ name: acme.name, settings: { a: 1 } });
    }
    expect(await settingsAudit(acme)).toHaveLength(1);
    expect(heard).not.toContain(acme.tenantId);
  });

  it('treats a re-sent nested setting with its keys reordered as no change', async () => {
    const acme = await createTenant(t);
    const theme = { color: 'blue', font: { family: 'serif', size: 12 }, spacing: [1, 2] };
    const first = await patchCurrent(acme.owner.headers, { settings: { theme } });
    expect(first.statusCode).toBe(200);
    const heard: string[] = [];
    t.deps.changes.subscribe(TENANT_CONFIG_TOPIC, (id) => heard.push(id));
    for (const resent of [theme, { spacing: [1, 2], font: { size: 12, family: 'serif' }, color: 'blue' }]) {
      const res = await patchCurrent(acme.owner.headers, { settings: { theme: resent } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual(first.json().data);
    }
    expect(await settingsAudit(acme)).toHaveLength(1);
    expect(heard).not.toContain(acme.tenantId);
  });

  it('caps the stored settings at 64 KiB', async () => {
    const acme = await createTenant(t);
    const half = 'x'.repeat(MAX_SETTINGS_BYTES / 2);
    expect((await patchCurrent(acme.owner.headers, { settings: { a: half } })).statusCode).toBe(200);
    const res = await patchCurrent(acme.owner.headers, { settings: { b: half } });
    expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
      { path: 'settings', message: expect.any(String) },
    ]);
    const [row] = await t.deps.database.db.select().from(tenants).where(eq(tenants.id, acme.tenantId));
    expect(Object.keys(row!.settings)).toEqual(['a']);
    // Removing a key to make room in the same patch is fine.
    expect((await patchCurrent(acme.owner.headers, { settings: { a: null, b: half } })).statusCode).toBe(200);
  });

  it('validates name and settings with exact paths', async () => {
    const acme = await createTenant(t);
    const cases: [unknown, string][] = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ settings: 'dark' }, 'settings'],
      [{ settings: [1, 2] }, 'settings'],
      [{ settings: null }, 'settings'],
    ];
    for (const [payload, path] of cases) {
      const err = expectError(await patchCurrent(acme.owner.headers, payload), 400, 'VALIDATION_ERROR');
      expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
  });

  it('answers 409 TENANT_EXISTS when another tenant has the name (any case), but allows recasing its own', async () => {
    const taken = await createTenant(t, { name: `Globex ${randomHex(4)}` });
    const acme = await createTenant(t);
    expectError(
      await patchCurrent(acme.owner.headers, { name: taken.name.toUpperCase() }),
      409,
      'TENANT_EXISTS',
    );
    const res = await patchCurrent(taken.owner.headers, { name: taken.name.toLowerCase() });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.name).toBe(taken.name.toLowerCase());
  });

  it('lets ADMIN and OWNER update, refuses EDITOR and VIEWER', async () => {
    const acme = await createTenant(t);
    for (const role of ['ADMIN', 'OWNER'] as const) {
      const actor = role === 'OWNER' ? acme.owner : await acme.as(role);
      expect((await patchCurrent(actor.headers, { settings: { by: role } })).statusCode).toBe(200);
    }
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      expectError(await patchCurrent(actor.headers, { settings: { by: role } }), 403, 'INSUFFICIENT_ROLE');
    }
    expectError(await patchCurrent({}, { settings: {} }), 401, 'AUTH_NO_TOKEN');
    expect((await getCurrent(acme.owner.headers)).json().data.settings).toEqual({ by: 'OWNER' });
  });
});
