import { and, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { type Actor, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { auditLogs } from '../../db/schema/index.js';
import type { ModuleManifest } from '../../deps.js';
import type { Referrer } from '../../platform/references.js';
import { allModules } from '../index.js';
import { loadLiveAudiences } from './store.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
/** Audience id → referrers reported by the fake finder registered below. */
const inUse = new Map<string, Referrer[]>();
const finderCalls: { tenantId: string; id: string }[] = [];

beforeAll(async () => {
  const testReferrer: ModuleManifest = {
    name: 'test-referrer',
    referenceFinders: [
      {
        target: 'audience',
        name: 'test-referrer',
        find: async (_exec, tenantId, id) => {
          finderCalls.push({ tenantId, id });
          return inUse.get(id) ?? [];
        },
      },
    ],
  };
  t = await createTestApp({ modules: [...allModules, testReferrer] });
  acme = await createTenant(t, { name: 'Acme' });
  other = await createTenant(t);
});
afterAll(() => t.close());

interface AudienceBody {
  id: string;
  name: string;
  description: string | null;
  ruleTree: unknown;
  tenantId: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

const planTree = { logicalOperator: 'AND', rules: [{ field: 'traits.plan', operator: 'eq', value: 'pro' }] };

const call = (actor: Actor | undefined, method: InjectOptions['method'], url: string, payload?: unknown) =>
  t.inject({
    method,
    url,
    ...(actor ? { headers: actor.headers } : {}),
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });

async function createAudience(
  tenant: TenantFixture,
  body: Record<string, unknown> = {},
): Promise<AudienceBody> {
  const res = await call(tenant.owner, 'POST', '/api/audiences', {
    name: 'Pro users',
    ruleTree: planTree,
    ...body,
  });
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

const auditOf = (id: string) =>
  t.deps.database.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.entityId, id), eq(auditLogs.entityType, 'audience')))
    .orderBy(auditLogs.createdAt, auditLogs.id);

describe('create and read', () => {
  it('creates an audience (201) and reads it back with its rule tree', async () => {
    const res = await call(acme.owner, 'POST', '/api/audiences', {
      name: '  Pro users  ',
      description: 'Paying customers',
      ruleTree: planTree,
      unknownField: 'stripped',
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data as AudienceBody;
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Pro users',
      description: 'Paying customers',
      ruleTree: planTree,
      tenantId: acme.tenantId,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      deletedAt: null,
    });
    const got = await call(acme.owner, 'GET', `/api/audiences/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ data: created });
  });

  it('accepts a lone leaf as the whole tree, OR/NOT groups and a safe regex; description defaults to null', async () => {
    const leaf = await createAudience(acme, { ruleTree: { field: 'role', operator: 'eq', value: 'admin' } });
    expect(leaf.ruleTree).toEqual({ field: 'role', operator: 'eq', value: 'admin' });
    expect(leaf.description).toBeNull();
    const nested = {
      logicalOperator: 'OR',
      rules: [
        { field: 'traits.email', operator: 'regex', value: '^[a-z]+@example\\.com$' },
        { logicalOperator: 'NOT', rules: [{ field: 'device.type', operator: 'in', value: ['mobile'] }] },
      ],
    };
    expect((await createAudience(acme, { ruleTree: nested })).ruleTree).toEqual(nested);
  });

  it('writes AUDIENCE_CREATED in the audit trail', async () => {
    const a = await createAudience(acme, { name: 'Audited' });
    const rows = await auditOf(a.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'AUDIENCE_CREATED',
      tenantId: acme.tenantId,
      actorId: acme.owner.userId,
      metadata: { name: 'Audited' },
    });
  });
});

describe('validation', () => {
  const post = (payload: unknown) => call(acme.owner, 'POST', '/api/audiences', payload);
  const paths = (res: Awaited<ReturnType<typeof post>>) =>
    (expectError(res, 400, 'VALIDATION_ERROR').details as { path: string }[]).map((d) => d.path);

  it('names the missing or invalid name and ruleTree', async () => {
    expect(paths(await post({ ruleTree: planTree }))).toEqual(['name']);
    expect(paths(await post({ name: '   ', ruleTree: planTree }))).toEqual(['name']);
    expect(paths(await post({ name: 'x'.repeat(256), ruleTree: planTree }))).toEqual(['name']);
    expect(paths(await post({ name: 'No tree' }))).toEqual(['ruleTree']);
    expect(paths(await post({ name: 'a', description: 5, ruleTree: planTree }))).toEqual(['description']);
    expect((await post({ name: 'x'.repeat(255), ruleTree: planTree })).statusCode).toBe(201);
  });

  it('points at the bad node inside the tree: ruleTree.rules.1.operator', async () => {
    const res = await post({
      name: 'Bad operator',
      ruleTree: {
        logicalOperator: 'AND',
        rules: [
          { field: 'traits.plan', operator: 'eq', value: 'pro' },
          { field: 'traits.plan', operator: 'like', value: 'pro' },
        ],
      },
    });
    expect(paths(res)).toEqual(['ruleTree.rules.1.operator']);
  });

  it('names nested paths for other bad nodes', async () => {
    expect(
      paths(
        await post({
          name: 'Bad group',
          ruleTree: {
            logicalOperator: 'OR',
            rules: [{ logicalOperator: 'XOR', rules: [{ field: 'role', operator: 'eq', value: 'a' }] }],
          },
        }),
      ),
    ).toEqual(['ruleTree.rules.0.logicalOperator']);
    expect(
      paths(await post({ name: 'No list', ruleTree: { field: 'traits.tags', operator: 'in', value: 'a' } })),
    ).toEqual(['ruleTree.value']);
  });

  it('refuses a catastrophically backtracking regex at save', async () => {
    const res = await post({
      name: 'ReDoS',
      ruleTree: {
        logicalOperator: 'AND',
        rules: [{ field: 'traits.name', operator: 'regex', value: '(a+)+$' }],
      },
    });
    expect(paths(res)).toEqual(['ruleTree.rules.0.value']);
    const patch = await call(acme.owner, 'PATCH', `/api/audiences/${(await createAudience(acme)).id}`, {
      ruleTree: { field: 'traits.name', operator: 'regex', value: '(a+)+$' },
    });
    expect(paths(patch)).toEqual(['ruleTree.value']);
  });

  it('refuses malformed JSON and non-object trees', async () => {
    expectError(
      await t.inject({
        method: 'POST',
        url: '/api/audiences',
        headers: { ...acme.owner.headers, 'content-type': 'application/json' },
        payload: '{"name":',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(paths(await post({ name: 'a', ruleTree: 'yes' }))).toEqual(['ruleTree']);
  });
});

describe('list', () => {
  it('searches names case-insensitively, paginates newest first and hides deleted ones', async () => {
    const tenant = await createTenant(t);
    const made: AudienceBody[] = [];
    for (const name of ['Alpha Users', 'beta USERS', 'Gamma', 'users_100%', 'Deleted users']) {
      made.push(await createAudience(tenant, { name }));
    }
    expect((await call(tenant.owner, 'DELETE', `/api/audiences/${made[4]!.id}`)).statusCode).toBe(200);

    const all = await call(tenant.owner, 'GET', '/api/audiences');
    expect(all.statusCode).toBe(200);
    expect(all.json().meta).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    expect(all.json().data.map((a: AudienceBody) => a.name)).toEqual([
      'users_100%',
      'Gamma',
      'beta USERS',
      'Alpha Users',
    ]);
    expect(all.json().data[0]).toEqual(made[3]);

    const search = await call(tenant.owner, 'GET', '/api/audiences?search=uSeRs');
    expect(search.json().data.map((a: AudienceBody) => a.name)).toEqual([
      'users_100%',
      'beta USERS',
      'Alpha Users',
    ]);
    expect(search.json().meta.total).toBe(3);
    // LIKE wildcards in the search match literally
    const literal = await call(tenant.owner, 'GET', '/api/audiences?search=_100%25');
    expect(literal.json().data.map((a: AudienceBody) => a.name)).toEqual(['users_100%']);

    const page2 = await call(tenant.owner, 'GET', '/api/audiences?page=2&limit=3');
    expect(page2.json().meta).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
    expect(page2.json().data.map((a: AudienceBody) => a.name)).toEqual(['Alpha Users']);
    const beyond = await call(tenant.owner, 'GET', '/api/audiences?page=9&limit=3');
    expect(beyond.json()).toEqual({ data: [], meta: { page: 9, limit: 3, total: 4, totalPages: 2 } });

    const none = await call(tenant.owner, 'GET', '/api/audiences?search=nomatch');
    expect(none.json()).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
  });

  it('validates page and limit', async () => {
    for (const [query, path] of [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=abc', 'query.limit'],
      ['page=0', 'query.page'],
      ['page=1.5', 'query.page'],
    ] as const) {
      const err = expectError(
        await call(acme.owner, 'GET', `/api/audiences?${query}`),
        400,
        'VALIDATION_ERROR',
      );
      expect((err.details as { path: string }[])[0]!.path).toBe(path);
    }
  });

  it("shows only the tenant's own audiences", async () => {
    const mine = await createAudience(other, { name: 'Other tenant only' });
    const res = await call(acme.owner, 'GET', '/api/audiences?limit=100&search=Other tenant only');
    expect(res.json().data).toEqual([]);
    const theirs = await call(other.owner, 'GET', '/api/audiences?limit=100&search=Other tenant only');
    expect(theirs.json().data.map((a: AudienceBody) => a.id)).toEqual([mine.id]);
  });
});

describe('update', () => {
  it('changes any subset and answers the full record; audits the changed fields only', async () => {
    const a = await createAudience(acme, { name: 'Before', description: 'd' });
    const renamed = await call(acme.owner, 'PATCH', `/api/audiences/${a.id}`, { name: 'After' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({
      id: a.id,
      name: 'After',
      description: 'd',
      ruleTree: planTree,
      tenantId: acme.tenantId,
      createdAt: a.createdAt,
      deletedAt: null,
    });
    expect(Date.parse(renamed.json().data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(a.updatedAt));

    const newTree = { field: 'traits.age', operator: 'gte', value: 18 };
    const both = await call(acme.owner, 'PATCH', `/api/audiences/${a.id}`, {
      name: 'After',
      description: null,
      ruleTree: newTree,
    });
    expect(both.json().data).toMatchObject({ name: 'After', description: null, ruleTree: newTree });

    // Same values again (keys in another order): nothing to change, nothing audited.
    const same = await call(acme.owner, 'PATCH', `/api/audiences/${a.id}`, {
      ruleTree: { value: 18, operator: 'gte', field: 'traits.age' },
    });
    expect(same.statusCode).toBe(200);
    expect(same.json().data).toEqual(both.json().data);
    const empty = await call(acme.owner, 'PATCH', `/api/audiences/${a.id}`, {});
    expect(empty.json().data).toEqual(both.json().data);

    const got = await call(acme.owner, 'GET', `/api/audiences/${a.id}`);
    expect(got.json().data).toEqual(both.json().data);

    const rows = await auditOf(a.id);
    expect(rows.map((r) => [r.action, r.metadata])).toEqual([
      ['AUDIENCE_CREATED', { name: 'Before', version: 1 }],
      ['AUDIENCE_UPDATED', { changedFields: ['name'], version: 2 }],
      ['AUDIENCE_UPDATED', { changedFields: ['description', 'ruleTree'], version: 3 }],
    ]);
  });

  it('validates the patch with the same paths', async () => {
    const a = await createAudience(acme);
    const bad = await call(acme.owner, 'PATCH', `/api/audiences/${a.id}`, {
      name: '',
      ruleTree: {
        logicalOperator: 'AND',
        rules: [{ field: 'role', operator: 'eq', value: 'x' }, { field: 'role' }],
      },
    });
    const paths = (expectError(bad, 400, 'VALIDATION_ERROR').details as { path: string }[]).map(
      (d) => d.path,
    );
    expect(paths.sort()).toEqual(['name', 'ruleTree.rules.1.operator']);
    const unchanged = await call(acme.owner, 'GET', `/api/audiences/${a.id}`);
    expect(unchanged.json().data.name).toBe('Pro users');
  });
});

describe('delete and restore', () => {
  it('soft-deletes: 200 with the record, then hidden from GET, list, PATCH and evaluate', async () => {
    const a = await createAudience(acme, { name: 'Short-lived' });
    const del = await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json().data).toMatchObject({ id: a.id, name: 'Short-lived', tenantId: acme.tenantId });
    expect(del.json().data.deletedAt).toEqual(expect.any(String));

    expectError(await call(acme.owner, 'GET', `/api/audiences/${a.id}`), 404, 'NOT_FOUND');
    expectError(await call(acme.owner, 'PATCH', `/api/audiences/${a.id}`, { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await call(acme.owner, 'POST', `/api/audiences/${a.id}/evaluate`, {}), 404, 'NOT_FOUND');
    expectError(await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`), 404, 'NOT_FOUND');
    const list = await call(acme.owner, 'GET', '/api/audiences?limit=100&search=Short-lived');
    expect(list.json().data).toEqual([]);
  });

  it('restores a deleted audience; restoring an active one is 409 INVALID_STATE_TRANSITION', async () => {
    const a = await createAudience(acme, { name: 'Phoenix' });
    const notDeleted = expectError(
      await call(acme.owner, 'POST', `/api/audiences/${a.id}/restore`),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expect(notDeleted.details).toEqual({ from: 'ACTIVE', action: 'restore' });

    await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`);
    const restored = await call(acme.owner, 'POST', `/api/audiences/${a.id}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json().data).toMatchObject({
      id: a.id,
      name: 'Phoenix',
      ruleTree: planTree,
      deletedAt: null,
    });
    expect((await call(acme.owner, 'GET', `/api/audiences/${a.id}`)).json().data.deletedAt).toBeNull();
    const list = await call(acme.owner, 'GET', '/api/audiences?search=Phoenix');
    expect(list.json().data.map((x: AudienceBody) => x.id)).toEqual([a.id]);

    const rows = await auditOf(a.id);
    expect(rows.map((r) => [r.action, r.metadata])).toEqual([
      ['AUDIENCE_CREATED', { name: 'Phoenix', version: 1 }],
      ['AUDIENCE_DELETED', { name: 'Phoenix' }],
      ['AUDIENCE_UPDATED', { restored: true }],
    ]);
    expect(rows.every((r) => r.actorId === acme.owner.userId && r.tenantId === acme.tenantId)).toBe(true);
  });

  it('walks every state × action of the lifecycle', async () => {
    const expectations = [
      { state: 'ACTIVE', action: 'delete', status: 200 },
      { state: 'ACTIVE', action: 'restore', status: 409 },
      // reads hide a deleted audience, so deleting it again is a plain 404
      { state: 'DELETED', action: 'delete', status: 404 },
      { state: 'DELETED', action: 'restore', status: 200 },
    ] as const;
    for (const { state, action, status } of expectations) {
      const a = await createAudience(acme);
      if (state === 'DELETED') await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`);
      const res =
        action === 'delete'
          ? await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`)
          : await call(acme.owner, 'POST', `/api/audiences/${a.id}/restore`);
      expect({ state, action, status: res.statusCode }).toEqual({ state, action, status });
      if (status === 200) {
        expect(res.json().data.deletedAt === null).toBe(action === 'restore');
      }
    }
  });

  it('refuses to delete an audience still referenced: 409 AUDIENCE_IN_USE listing the referrers', async () => {
    const a = await createAudience(acme, { name: 'Targeted' });
    const referrers = [
      { type: 'flow', id: '01900000-0000-7000-8000-000000000001', name: 'Onboarding' },
      { type: 'tooltip', id: '01900000-0000-7000-8000-000000000002', name: 'Hint' },
    ];
    inUse.set(a.id, referrers);
    try {
      const err = expectError(
        await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`),
        409,
        'AUDIENCE_IN_USE',
      );
      expect(err.details).toEqual(referrers);
      expect(err.category).toBe('CONFLICT');
      expect(finderCalls).toContainEqual({ tenantId: acme.tenantId, id: a.id });
      // still there, nothing audited
      expect((await call(acme.owner, 'GET', `/api/audiences/${a.id}`)).json().data.deletedAt).toBeNull();
      expect((await auditOf(a.id)).map((r) => r.action)).toEqual(['AUDIENCE_CREATED']);
    } finally {
      inUse.delete(a.id);
    }
    expect((await call(acme.owner, 'DELETE', `/api/audiences/${a.id}`)).statusCode).toBe(200);
  });
});

describe('evaluate', () => {
  const evaluate = async (ruleTree: unknown, context: unknown) => {
    const a = await createAudience(acme, { ruleTree });
    const res = await call(acme.owner, 'POST', `/api/audiences/${a.id}/evaluate`, context);
    expect(res.statusCode).toBe(200);
    return { id: a.id, data: res.json().data };
  };

  it('matches nested trait paths and echoes the evaluated context', async () => {
    const context = { userId: 'u-1', traits: { a: { b: 'deep' }, plan: 'pro' }, role: 'admin' };
    const { id, data } = await evaluate(
      {
        logicalOperator: 'AND',
        rules: [
          { field: 'traits.a.b', operator: 'eq', value: 'deep' },
          { field: 'traits.plan', operator: 'in', value: ['pro', 'enterprise'] },
        ],
      },
      { ...context, ignored: true },
    );
    expect(data).toEqual({ matches: true, audienceId: id, context, matchedRules: 2, totalRules: 2 });
  });

  it('counts matched leaves over the whole tree with OR and NOT groups', async () => {
    const tree = {
      logicalOperator: 'OR',
      rules: [
        { field: 'traits.plan', operator: 'eq', value: 'enterprise' },
        {
          logicalOperator: 'NOT',
          rules: [{ field: 'device.type', operator: 'eq', value: 'mobile' }],
        },
      ],
    };
    const desktop = await evaluate(tree, { traits: { plan: 'free' }, device: { type: 'desktop' } });
    expect(desktop.data).toMatchObject({ matches: true, matchedRules: 0, totalRules: 2 });
    const mobile = await evaluate(tree, {
      traits: { plan: 'free' },
      device: { type: 'mobile', browser: 'safari' },
    });
    expect(mobile.data).toMatchObject({
      matches: false,
      matchedRules: 1,
      totalRules: 2,
      context: { traits: { plan: 'free' }, device: { type: 'mobile', browser: 'safari' } },
    });
    const enterpriseMobile = await evaluate(tree, {
      traits: { plan: 'enterprise' },
      device: { type: 'mobile' },
    });
    expect(enterpriseMobile.data).toMatchObject({ matches: true, matchedRules: 2, totalRules: 2 });
  });

  it('fails every operator on a missing field but not_exists, neq, not_in and not_contains', async () => {
    const operators = [
      ['eq', 'x', false],
      ['exists', undefined, false],
      ['gt', 1, false],
      ['contains', 'x', false],
      ['regex', '^x', false],
      ['not_exists', undefined, true],
      ['neq', 'x', true],
      ['not_in', ['x'], true],
      ['not_contains', 'x', true],
    ] as const;
    for (const [operator, value, expected] of operators) {
      const leaf = { field: 'traits.missing', operator, ...(value === undefined ? {} : { value }) };
      const { data } = await evaluate(leaf, { traits: { present: 1 } });
      expect({ operator, matches: data.matches, matched: data.matchedRules, total: data.totalRules }).toEqual(
        {
          operator,
          matches: expected,
          matched: expected ? 1 : 0,
          total: 1,
        },
      );
    }
  });

  it('evaluates an empty context when no body is sent, and validates the context', async () => {
    const a = await createAudience(acme, { ruleTree: { field: 'userId', operator: 'not_exists' } });
    const res = await call(acme.owner, 'POST', `/api/audiences/${a.id}/evaluate`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      matches: true,
      audienceId: a.id,
      context: {},
      matchedRules: 1,
      totalRules: 1,
    });
    const bad = await call(acme.owner, 'POST', `/api/audiences/${a.id}/evaluate`, {
      traits: 'not an object',
      device: { type: 3 },
    });
    const paths = (expectError(bad, 400, 'VALIDATION_ERROR').details as { path: string }[]).map(
      (d) => d.path,
    );
    expect(paths.sort()).toEqual(['device.type', 'traits']);
  });
});

describe('roles', () => {
  it('lets VIEWER read and evaluate but not write', async () => {
    const viewer = await acme.as('VIEWER');
    const a = await createAudience(acme);
    expect((await call(viewer, 'GET', '/api/audiences')).statusCode).toBe(200);
    expect((await call(viewer, 'GET', `/api/audiences/${a.id}`)).statusCode).toBe(200);
    expect((await call(viewer, 'POST', `/api/audiences/${a.id}/evaluate`, { role: 'x' })).statusCode).toBe(
      200,
    );
    const writes: [InjectOptions['method'], string, unknown][] = [
      ['POST', '/api/audiences', { name: 'v', ruleTree: planTree }],
      ['PATCH', `/api/audiences/${a.id}`, { name: 'v' }],
      ['DELETE', `/api/audiences/${a.id}`, undefined],
      ['POST', `/api/audiences/${a.id}/restore`, undefined],
    ];
    for (const [method, url, payload] of writes) {
      expectError(await call(viewer, method, url, payload), 403, 'INSUFFICIENT_ROLE');
    }
    expect((await call(acme.owner, 'GET', `/api/audiences/${a.id}`)).json().data).toEqual(a);
  });

  it('lets EDITOR, ADMIN and OWNER write', async () => {
    for (const role of ['EDITOR', 'ADMIN', 'OWNER'] as const) {
      const actor = role === 'OWNER' ? acme.owner : await acme.as(role);
      const created = await call(actor, 'POST', '/api/audiences', { name: role, ruleTree: planTree });
      expect(created.statusCode).toBe(201);
      const id = created.json().data.id;
      expect((await call(actor, 'PATCH', `/api/audiences/${id}`, { name: `${role}!` })).statusCode).toBe(200);
      expect((await call(actor, 'DELETE', `/api/audiences/${id}`)).statusCode).toBe(200);
      expect((await call(actor, 'POST', `/api/audiences/${id}/restore`)).statusCode).toBe(200);
      expect((await call(actor, 'POST', `/api/audiences/${id}/evaluate`, {})).statusCode).toBe(200);
      const rows = await auditOf(id);
      expect(rows.every((r) => r.actorId === actor.userId)).toBe(true);
    }
  });

  it('answers 401 without a token', async () => {
    const a = await createAudience(acme);
    for (const [method, url] of [
      ['GET', '/api/audiences'],
      ['POST', '/api/audiences'],
      ['GET', `/api/audiences/${a.id}`],
      ['PATCH', `/api/audiences/${a.id}`],
      ['DELETE', `/api/audiences/${a.id}`],
      ['POST', `/api/audiences/${a.id}/restore`],
      ['POST', `/api/audiences/${a.id}/evaluate`],
    ] as const) {
      expectError(await call(undefined, method, url, {}), 401, 'AUTH_NO_TOKEN');
    }
  });
});

describe('tenant isolation and opaque ids', () => {
  it("answers 404 NOT_FOUND for another tenant's, an unknown and a malformed id on every route", async () => {
    const a = await createAudience(acme, { name: 'Private' });
    const deleted = await createAudience(acme, { name: 'Private deleted' });
    await call(acme.owner, 'DELETE', `/api/audiences/${deleted.id}`);
    const ids = [a.id, deleted.id, '01900000-0000-7000-8000-00000000dead', 'not-a-uuid', '%20'];
    for (const id of ids) {
      for (const [method, url, payload] of [
        ['GET', `/api/audiences/${id}`, undefined],
        ['PATCH', `/api/audiences/${id}`, { name: 'stolen' }],
        ['DELETE', `/api/audiences/${id}`, undefined],
        ['POST', `/api/audiences/${id}/restore`, undefined],
        ['POST', `/api/audiences/${id}/evaluate`, {}],
      ] as const) {
        const res = await call(other.owner, method, url, payload);
        expect({ method, url, status: res.statusCode, code: res.json().error?.code }).toEqual({
          method,
          url,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
    }
    // nothing changed for the owner
    expect((await call(acme.owner, 'GET', `/api/audiences/${a.id}`)).json().data).toEqual(a);
    expectError(await call(acme.owner, 'GET', `/api/audiences/${deleted.id}`), 404, 'NOT_FOUND');
  });
});

describe('loadLiveAudiences', () => {
  it("maps the tenant's live audiences to their rule trees", async () => {
    const tenant = await createTenant(t);
    const live = await createAudience(tenant, { name: 'Live' });
    const gone = await createAudience(tenant, { name: 'Gone' });
    await call(tenant.owner, 'DELETE', `/api/audiences/${gone.id}`);
    const foreign = await createAudience(other);
    const db = t.deps.database.db;

    const all = await loadLiveAudiences(db, tenant.tenantId);
    expect([...all.entries()]).toEqual([[live.id, planTree]]);
    const some = await loadLiveAudiences(db, tenant.tenantId, [live.id, gone.id, foreign.id, 'junk']);
    expect([...some.keys()]).toEqual([live.id]);
    expect((await loadLiveAudiences(db, tenant.tenantId, [])).size).toBe(0);
  });
});

describe('OpenAPI', () => {
  it('documents the audience routes', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/api/audiences'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/audiences/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(paths['/api/audiences/{id}/restore']).toHaveProperty('post');
    expect(paths['/api/audiences/{id}/evaluate']).toHaveProperty('post');
  });
});
