import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { auditLogs } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Entry {
  id: string;
  tenantId: string;
  action: string;
  entityType: string;
  entityId: string | null;
  actorId: string | null;
  ipAddress: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}

const list = (tenant: TenantFixture, query = '', headers = tenant.owner.headers) =>
  t.inject({ method: 'GET', url: `/api/tenants/audit-logs${query ? `?${query}` : ''}`, headers });

const ids = async (tenant: TenantFixture, query: string) => {
  const res = await list(tenant, query);
  expect(res.statusCode).toBe(200);
  return (res.json().data as Entry[]).map((e) => e.id);
};

/** Seeds entries straight into the table, at chosen times, oldest first. */
async function seed(tenant: TenantFixture, rows: Partial<typeof auditLogs.$inferInsert>[]) {
  const values = rows.map((r) => ({
    id: newId(),
    tenantId: tenant.tenantId,
    action: 'FLOW_CREATED',
    entityType: 'flow',
    entityId: newId(),
    actorId: tenant.owner.userId,
    ipAddress: '127.0.0.1',
    metadata: {},
    createdAt: new Date('2024-03-10T12:00:00Z'),
    ...r,
  }));
  await t.deps.database.db.insert(auditLogs).values(values);
  return values.map((v) => v.id);
}

describe('GET /api/tenants/audit-logs', () => {
  it('lists entries written by real changes, with actor, entity, IP and metadata', async () => {
    const acme = await createTenant(t);
    const settings = await t.inject({
      method: 'PATCH',
      url: '/api/tenants/current',
      headers: acme.owner.headers,
      payload: { settings: { theme: 'dark' } },
      remoteAddress: '203.0.113.20',
    });
    expect(settings.statusCode).toBe(200);
    const res = await list(acme);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          id: expect.any(String),
          tenantId: acme.tenantId,
          action: 'TENANT_SETTINGS_UPDATED',
          entityType: 'tenant',
          entityId: acme.tenantId,
          actorId: acme.owner.userId,
          ipAddress: '203.0.113.20',
          metadata: { settings: { set: ['theme'], removed: [] } },
          createdAt: expect.any(String),
        },
      ],
      meta: { page: 1, limit: 20, total: 1, totalPages: 1 },
    });
  });

  it('orders by createdAt desc then id desc and paginates with a default limit of 20', async () => {
    const acme = await createTenant(t);
    const base = Date.parse('2024-01-01T00:00:00Z');
    const seeded = await seed(
      acme,
      Array.from({ length: 25 }, (_, i) => ({ createdAt: new Date(base + Math.floor(i / 2) * 60_000) })),
    );
    // Pairs share a timestamp: within a pair the later id (uuid v7) comes first.
    const expected = [...seeded].reverse();
    const first = await list(acme);
    expect(first.json().meta).toEqual({ page: 1, limit: 20, total: 25, totalPages: 2 });
    expect(first.json().data.map((e: Entry) => e.id)).toEqual(expected.slice(0, 20));
    const second = await list(acme, 'page=2');
    expect(second.json().data.map((e: Entry) => e.id)).toEqual(expected.slice(20));
    expect((await list(acme, 'page=3&limit=10')).json().data.map((e: Entry) => e.id)).toEqual(
      expected.slice(20),
    );
    expect((await list(acme, 'page=4&limit=10')).json()).toEqual({
      data: [],
      meta: { page: 4, limit: 10, total: 25, totalPages: 3 },
    });
  });

  it('filters by action (one or several), entityType, entityId and actorId', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const entity = newId();
    const [a, b, c, d] = await seed(acme, [
      { action: 'FLOW_CREATED', entityType: 'flow', entityId: entity },
      { action: 'FLOW_PUBLISHED', entityType: 'flow', entityId: entity, actorId: admin.userId },
      { action: 'MEMBER_INVITED', entityType: 'member', actorId: admin.userId },
      { action: 'API_KEY_CREATED', entityType: 'api_key', actorId: null },
    ]);
    expect(await ids(acme, 'action=FLOW_CREATED')).toEqual([a]);
    expect((await ids(acme, 'action=FLOW_PUBLISHED,MEMBER_INVITED')).sort()).toEqual([b, c].sort());
    expect(await ids(acme, 'action=flow_created')).toEqual([]);
    expect((await ids(acme, 'entityType=flow')).sort()).toEqual([a, b].sort());
    expect(await ids(acme, 'entityType=api_key')).toEqual([d]);
    expect((await ids(acme, `entityId=${entity}`)).sort()).toEqual([a, b].sort());
    expect((await ids(acme, `actorId=${admin.userId}`)).sort()).toEqual([b, c].sort());
    expect(await ids(acme, `actorId=${admin.userId}&entityType=member`)).toEqual([c]);
    expect(await ids(acme, 'entityId=nothing')).toEqual([]);
  });

  it('filters by startDate and endDate (dates cover whole UTC days, datetimes are exact)', async () => {
    const acme = await createTenant(t);
    const [d1, d2, d3, d4] = await seed(acme, [
      { createdAt: new Date('2024-05-01T23:59:59.999Z') },
      { createdAt: new Date('2024-05-02T00:00:00.000Z') },
      { createdAt: new Date('2024-05-02T18:30:00.000Z') },
      { createdAt: new Date('2024-05-03T00:00:00.000Z') },
    ]);
    const sorted = (q: string) => ids(acme, q).then((x) => x.sort());
    expect(await sorted('startDate=2024-05-02')).toEqual([d2, d3, d4].sort());
    expect(await sorted('endDate=2024-05-02')).toEqual([d1, d2, d3].sort());
    expect(await sorted('startDate=2024-05-02&endDate=2024-05-02')).toEqual([d2, d3].sort());
    expect(await sorted('startDate=2024-05-02T18:30:00Z&endDate=2024-05-03T00:00:00Z')).toEqual(
      [d3, d4].sort(),
    );
    expect(await sorted('startDate=2024-05-02T10:00:00%2B02:00&endDate=2024-05-02T18:30:00.000Z')).toEqual(
      [d3].sort(),
    );
    expect(await sorted('endDate=2024-05-01T23:59:59.999Z')).toEqual([d1]);
    expect(await sorted('startDate=2024-05-02T00:00:00')).toEqual([d2, d3, d4].sort());
    expect(await ids(acme, 'startDate=2030-01-01')).toEqual([]);
  });

  it('rejects invalid filters with dotted paths', async () => {
    const acme = await createTenant(t);
    const cases: [string, string][] = [
      ['startDate=yesterday', 'query.startDate'],
      ['startDate=2024-02-30', 'query.startDate'],
      ['startDate=2024-13-01', 'query.startDate'],
      ['endDate=2024-05-02T25:00:00Z', 'query.endDate'],
      ['endDate=12345', 'query.endDate'],
      ['startDate=2024-05-03&endDate=2024-05-02', 'query.startDate'],
      ['startDate=2024-05-02T10:00:01Z&endDate=2024-05-02T10:00:00Z', 'query.startDate'],
      ['actorId=not-a-uuid', 'query.actorId'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['page=-1', 'query.page'],
    ];
    for (const [q, path] of cases) {
      const err = expectError(await list(acme, q), 400, 'VALIDATION_ERROR');
      expect({ q, paths: (err.details as { path: string }[]).map((d) => d.path) }).toEqual({
        q,
        paths: [path],
      });
    }
    // Equal bounds are fine.
    expect((await list(acme, 'startDate=2024-05-02T10:00:00Z&endDate=2024-05-02T10:00:00Z')).statusCode).toBe(
      200,
    );
  });

  it('never shows another tenant’s entries, whatever the filter', async () => {
    const acme = await createTenant(t);
    const other = await createTenant(t);
    const [mine] = await seed(acme, [{ action: 'FLOW_CREATED' }]);
    const entity = newId();
    await seed(other, [{ action: 'FLOW_CREATED', entityId: entity }]);
    await t.inject({
      method: 'PATCH',
      url: '/api/tenants/current',
      headers: other.owner.headers,
      payload: { settings: { x: 1 } },
    });
    expect(await ids(acme, '')).toEqual([mine]);
    for (const q of [
      `entityId=${entity}`,
      `actorId=${other.owner.userId}`,
      'action=TENANT_SETTINGS_UPDATED',
      `entityId=${other.tenantId}`,
    ]) {
      expect(await ids(acme, q)).toEqual([]);
    }
    expect((await list(other)).json().meta.total).toBe(2);
  });

  it('lets ADMIN and OWNER read, refuses EDITOR and VIEWER, and offers no way to change an entry', async () => {
    const acme = await createTenant(t);
    await seed(acme, [{}]);
    expect((await list(acme, '', (await acme.as('ADMIN')).headers)).statusCode).toBe(200);
    expect((await list(acme)).statusCode).toBe(200);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      expectError(await list(acme, '', (await acme.as(role)).headers), 403, 'INSUFFICIENT_ROLE');
    }
    expectError(await list(acme, '', {}), 401, 'AUTH_NO_TOKEN');
    const [entry] = (await list(acme)).json().data as Entry[];
    for (const method of ['PATCH', 'PUT', 'DELETE'] as const) {
      const res = await t.inject({
        method,
        url: `/api/tenants/audit-logs/${entry!.id}`,
        headers: acme.owner.headers,
        payload: {},
      });
      expectError(res, 404, 'NOT_FOUND');
    }
    expectError(
      await t.inject({ method: 'DELETE', url: '/api/tenants/audit-logs', headers: acme.owner.headers }),
      404,
      'NOT_FOUND',
    );
    expect((await list(acme)).json().meta.total).toBe(1);
  });
});
