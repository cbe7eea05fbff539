import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  auditEntries,
  callAs,
  createTenant,
  insertAudience,
  insertFlow,
  type TenantFixture,
} from '../../../test/helpers/factories.js';
import { plans, subscriptions } from '../../db/schema/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const call = (
  who: Parameters<typeof callAs>[1],
  method: Parameters<typeof callAs>[2],
  url: string,
  payload?: unknown,
) => callAs(t, who, method, url, payload);

async function twoFlows(tenant: TenantFixture) {
  return [await insertFlow(t, tenant.tenantId), await insertFlow(t, tenant.tenantId, { name: 'Variant B' })];
}

async function createExperiment(tenant: TenantFixture, body: Record<string, unknown> = {}) {
  const [a, b] = await twoFlows(tenant);
  const res = await call(tenant, 'POST', '/api/experiments', {
    name: 'Onboarding test',
    variants: [
      { name: 'Control', splitPercentage: 50, flowId: a },
      { name: 'New tour', splitPercentage: 50, flowId: b },
    ],
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as {
    id: string;
    status: string;
    startDate: string | null;
    variants: { id: string; name: string; splitPercentage: number; flowId: string | null }[];
    [k: string]: unknown;
  };
}

/** The error's `details` (after checking the envelope). */
// biome-ignore lint/suspicious/noExplicitAny: details differ by error code
const details = (res: Awaited<ReturnType<typeof call>>, status: number, code: string): any =>
  (expectError(res, status, code) as { details?: unknown }).details;

async function setPlan(tenantId: string, plan: string) {
  const [row] = await t.deps.database.db.select({ id: plans.id }).from(plans).where(eq(plans.name, plan));
  await t.deps.database.db
    .update(subscriptions)
    .set({ planId: row!.id })
    .where(eq(subscriptions.tenantId, tenantId));
}

describe('POST /api/experiments', () => {
  it('creates a draft with its variants in order (the first is the control), audited', async () => {
    const tenant = await createTenant(t);
    const [a] = await twoFlows(tenant);
    const audienceId = await insertAudience(t, tenant.tenantId);
    const res = await call(tenant, 'POST', '/api/experiments', {
      name: '  Welcome tour  ',
      description: 'Which tour converts?',
      audienceId,
      endDate: '2099-01-01T00:00:00.000Z',
      variants: [
        { name: 'Control', splitPercentage: 33.33, flowId: a, config: { color: 'blue' } },
        { name: 'B', splitPercentage: 33.33 },
        { name: 'Holdout', splitPercentage: 33.34, flowId: null },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      id: expect.any(String),
      tenantId: tenant.tenantId,
      name: 'Welcome tour',
      description: 'Which tour converts?',
      type: 'ab_test',
      status: 'draft',
      audienceId,
      startDate: null,
      endDate: '2099-01-01T00:00:00.000Z',
      archivedAt: null,
      variants: [
        {
          id: expect.any(String),
          name: 'Control',
          splitPercentage: 33.33,
          flowId: a,
          config: { color: 'blue' },
        },
        { id: expect.any(String), name: 'B', splitPercentage: 33.33, flowId: null, config: {} },
        { id: expect.any(String), name: 'Holdout', splitPercentage: 33.34, flowId: null, config: {} },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await call(tenant, 'GET', `/api/experiments/${data.id}`)).json().data).toEqual(data);
    const [entry] = await auditEntries(t, tenant.tenantId, { action: 'EXPERIMENT_CREATED' });
    expect(entry).toMatchObject({
      entityType: 'experiment',
      entityId: data.id,
      actorId: tenant.owner.userId,
    });
  });

  it('accepts a draft without variants (they are needed to start, not to save)', async () => {
    const tenant = await createTenant(t);
    const res = await call(tenant, 'POST', '/api/experiments', { name: 'Later' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.variants).toEqual([]);
  });

  it.each([
    [
      'splits that do not sum to 100',
      {
        variants: [
          { name: 'A', splitPercentage: 50 },
          { name: 'B', splitPercentage: 40 },
        ],
      },
      'variants',
    ],
    ['a split above 100', { variants: [{ name: 'A', splitPercentage: 150 }] }, 'variants.0.splitPercentage'],
    [
      'a negative split',
      {
        variants: [
          { name: 'A', splitPercentage: -10 },
          { name: 'B', splitPercentage: 110 },
        ],
      },
      'variants.0.splitPercentage',
    ],
    [
      'a split finer than 0.01',
      {
        variants: [
          { name: 'A', splitPercentage: 50.005 },
          { name: 'B', splitPercentage: 49.995 },
        ],
      },
      'variants.0.splitPercentage',
    ],
    [
      'a split that is a string',
      {
        variants: [
          { name: 'A', splitPercentage: '50' },
          { name: 'B', splitPercentage: 50 },
        ],
      },
      'variants.0.splitPercentage',
    ],
    [
      'two variants of one name',
      {
        variants: [
          { name: 'A', splitPercentage: 50 },
          { name: 'a', splitPercentage: 50 },
        ],
      },
      'variants.1.name',
    ],
    ['an empty variant name', { variants: [{ name: ' ', splitPercentage: 100 }] }, 'variants.0.name'],
    [
      'too many variants',
      {
        variants: Array.from({ length: 11 }, (_, i) => ({
          name: `V${i}`,
          splitPercentage: i === 0 ? 0 : 10,
        })),
      },
      'variants',
    ],
    [
      'a malformed flowId',
      { variants: [{ name: 'A', splitPercentage: 100, flowId: 'nope' }] },
      'variants.0.flowId',
    ],
    ['no name', { name: undefined }, 'name'],
    ['an unknown type', { type: 'multi_armed_bandit' }, 'type'],
    ['an endDate that is not a date', { endDate: 'tomorrow' }, 'endDate'],
  ])('refuses %s (400 naming the field)', async (_label, body, path) => {
    const tenant = await createTenant(t);
    const res = await call(tenant, 'POST', '/api/experiments', { name: 'X', ...body });
    expect(details(res, 400, 'VALIDATION_ERROR').map((d: { path: string }) => d.path)).toContain(path);
  });

  it("refuses a flow or an audience that is not the tenant's (400 naming the field)", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const foreignFlow = await insertFlow(t, other.tenantId);
    const foreignAudience = await insertAudience(t, other.tenantId);
    const deletedAudience = await insertAudience(t, tenant.tenantId, { deleted: true });
    const flowRes = await call(tenant, 'POST', '/api/experiments', {
      name: 'X',
      variants: [
        { name: 'A', splitPercentage: 50 },
        { name: 'B', splitPercentage: 50, flowId: foreignFlow },
      ],
    });
    expect(details(flowRes, 400, 'VALIDATION_ERROR')).toEqual([
      { path: 'variants.1.flowId', message: expect.stringContaining('does not exist') },
    ]);
    for (const audienceId of [foreignAudience, deletedAudience]) {
      const res = await call(tenant, 'POST', '/api/experiments', { name: 'X', audienceId });
      expect(details(res, 400, 'VALIDATION_ERROR')[0].path).toBe('audienceId');
    }
    const list = await call(tenant, 'GET', '/api/experiments');
    expect(list.json().meta.total).toBe(0);
  });

  it('is refused on a plan without experiments (403 PLAN_FEATURE_UNAVAILABLE)', async () => {
    for (const plan of ['free', 'starter']) {
      const tenant = await createTenant(t, { plan });
      const res = await call(tenant, 'POST', '/api/experiments', { name: 'X' });
      expect(details(res, 403, 'PLAN_FEATURE_UNAVAILABLE')).toMatchObject({
        feature: 'experiments',
      });
    }
    const growth = await createTenant(t, { plan: 'growth' });
    expect((await call(growth, 'POST', '/api/experiments', { name: 'X' })).statusCode).toBe(201);
  });
});

describe('GET /api/experiments', () => {
  it('lists newest first with variants and _count.assignments, filters by status, hides archived', async () => {
    const tenant = await createTenant(t);
    const draft = await createExperiment(tenant, { name: 'Draft one' });
    const running = await createExperiment(tenant, { name: 'Running one' });
    const archived = await createExperiment(tenant, { name: 'Archived one' });
    expect((await call(tenant, 'POST', `/api/experiments/${running.id}/start`)).statusCode).toBe(200);
    expect((await call(tenant, 'DELETE', `/api/experiments/${archived.id}`)).statusCode).toBe(200);
    // two assignments straight in the database
    await t.deps.database.db.execute(sql`
      insert into end_users (id, tenant_id, external_id, traits) values
        (gen_random_uuid(), ${tenant.tenantId}, 'u1', '{}'), (gen_random_uuid(), ${tenant.tenantId}, 'u2', '{}')`);
    await t.deps.database.db.execute(sql`
      insert into experiment_assignments (experiment_id, end_user_id, tenant_id, variant_id, assigned_at)
      select ${running.id}, id, tenant_id, ${running.variants[0]!.id}, now() from end_users where tenant_id = ${tenant.tenantId}`);

    const res = await call(tenant, 'GET', '/api/experiments');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(body.data.map((e: { name: string }) => e.name)).toEqual(['Running one', 'Draft one']);
    expect(body.data[0]).toMatchObject({ status: 'running', _count: { assignments: 2 } });
    expect(body.data[0].variants).toHaveLength(2);
    expect(body.data[1]._count).toEqual({ assignments: 0 });

    const byStatus = async (status: string) =>
      (await call(tenant, 'GET', `/api/experiments?status=${status}`))
        .json()
        .data.map((e: { id: string }) => e.id);
    expect(await byStatus('running')).toEqual([running.id]);
    expect(await byStatus('draft')).toEqual([draft.id]);
    expect(await byStatus('archived')).toEqual([archived.id]);
    expect(await byStatus('completed')).toEqual([]);
    expectError(await call(tenant, 'GET', '/api/experiments?status=paused'), 400, 'VALIDATION_ERROR');
    expectError(await call(tenant, 'GET', '/api/experiments?limit=0'), 400, 'VALIDATION_ERROR');

    const page = (await call(tenant, 'GET', '/api/experiments?limit=1&page=2')).json();
    expect(page.meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expect(page.data.map((e: { id: string }) => e.id)).toEqual([draft.id]);
    const found = (await call(tenant, 'GET', '/api/experiments?search=DRAFT')).json().data;
    expect(found.map((e: { id: string }) => e.id)).toEqual([draft.id]);
  });
});

describe('PATCH /api/experiments/:id', () => {
  it('updates a draft: fields, and the variant list replaced (ids kept where sent), audited', async () => {
    const tenant = await createTenant(t);
    const exp = await createExperiment(tenant);
    const [control, b] = exp.variants;
    const res = await call(tenant, 'PATCH', `/api/experiments/${exp.id}`, {
      name: 'Renamed',
      variants: [
        { id: control!.id, name: 'Control', splitPercentage: 40, flowId: control!.flowId },
        { name: 'C', splitPercentage: 60 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.name).toBe('Renamed');
    expect(data.variants).toEqual([
      { id: control!.id, name: 'Control', splitPercentage: 40, flowId: control!.flowId, config: {} },
      { id: expect.any(String), name: 'C', splitPercentage: 60, flowId: null, config: {} },
    ]);
    expect(data.variants[1].id).not.toBe(b!.id);
    const [entry] = await auditEntries(t, tenant.tenantId, { action: 'EXPERIMENT_UPDATED' });
    expect(entry!.metadata).toEqual({ changed: ['name', 'variants'] });

    // the same values again: nothing written, nothing audited
    const same = await call(tenant, 'PATCH', `/api/experiments/${exp.id}`, {
      name: 'Renamed',
      variants: data.variants,
    });
    expect(same.json().data).toEqual(data);
    expect(await auditEntries(t, tenant.tenantId, { action: 'EXPERIMENT_UPDATED' })).toHaveLength(1);
  });

  it('validates like create (splits, foreign flow), and answers 404 for an unknown id', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const exp = await createExperiment(tenant);
    const bad = await call(tenant, 'PATCH', `/api/experiments/${exp.id}`, {
      variants: [{ name: 'A', splitPercentage: 99 }],
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    const foreign = await call(tenant, 'PATCH', `/api/experiments/${exp.id}`, {
      variants: [{ name: 'A', splitPercentage: 100, flowId: await insertFlow(t, other.tenantId) }],
    });
    expect(details(foreign, 400, 'VALIDATION_ERROR')[0].path).toBe('variants.0.flowId');
    expectError(
      await call(tenant, 'PATCH', '/api/experiments/not-an-id', { name: 'x' }),
      404,
      'CONTENT_NOT_FOUND',
    );
    // nothing changed
    expect((await call(tenant, 'GET', `/api/experiments/${exp.id}`)).json().data.variants).toEqual(
      exp.variants,
    );
  });

  it('is refused outside draft (409 INVALID_STATE_TRANSITION)', async () => {
    const tenant = await createTenant(t);
    const exp = await createExperiment(tenant);
    await call(tenant, 'POST', `/api/experiments/${exp.id}/start`);
    for (const step of ['running', 'stopped', 'archived']) {
      if (step === 'stopped') await call(tenant, 'POST', `/api/experiments/${exp.id}/stop`);
      if (step === 'archived') await call(tenant, 'DELETE', `/api/experiments/${exp.id}`);
      const res = await call(tenant, 'PATCH', `/api/experiments/${exp.id}`, { name: 'Too late' });
      expect(details(res, 409, 'INVALID_STATE_TRANSITION')).toEqual({
        from: step,
        action: 'update',
      });
    }
  });
});

describe('lifecycle: start, stop, delete, completion', () => {
  it('draft → running → stopped → running → archived, each audited; startDate set once', async () => {
    const tenant = await createTenant(t);
    const exp = await createExperiment(tenant);
    t.clock.set(Date.parse('2030-01-01T10:00:00Z'));
    try {
      const started = await call(tenant, 'POST', `/api/experiments/${exp.id}/start`);
      expect(started.statusCode, started.body).toBe(200);
      expect(started.json().data).toMatchObject({ status: 'running', startDate: '2030-01-01T10:00:00.000Z' });
      t.clock.advance(3_600_000);
      expect((await call(tenant, 'POST', `/api/experiments/${exp.id}/stop`)).json().data.status).toBe(
        'stopped',
      );
      const again = (await call(tenant, 'POST', `/api/experiments/${exp.id}/start`)).json().data;
      expect(again).toMatchObject({ status: 'running', startDate: '2030-01-01T10:00:00.000Z' });
      const archived = (await call(tenant, 'DELETE', `/api/experiments/${exp.id}`)).json().data;
      expect(archived).toMatchObject({ status: 'archived', archivedAt: '2030-01-01T11:00:00.000Z' });
      // archiving an archived experiment is a no-op 200
      const twice = await call(tenant, 'DELETE', `/api/experiments/${exp.id}`);
      expect(twice.statusCode).toBe(200);
      expect(twice.json().data).toEqual(archived);
    } finally {
      t.clock.reset();
    }
    const actions = (await auditEntries(t, tenant.tenantId, { entityId: exp.id })).map((e) => e.action);
    expect(actions).toEqual([
      'EXPERIMENT_CREATED',
      'EXPERIMENT_STARTED',
      'EXPERIMENT_STOPPED',
      'EXPERIMENT_STARTED',
      'EXPERIMENT_ARCHIVED',
    ]);
  });

  it('refuses transitions the table does not allow (409 INVALID_STATE_TRANSITION { from, action })', async () => {
    const tenant = await createTenant(t);
    const exp = await createExperiment(tenant);
    const expect409 = async (action: 'start' | 'stop', from: string) => {
      const res = await call(tenant, 'POST', `/api/experiments/${exp.id}/${action}`);
      expect(details(res, 409, 'INVALID_STATE_TRANSITION')).toEqual({ from, action });
    };
    await expect409('stop', 'draft');
    await call(tenant, 'POST', `/api/experiments/${exp.id}/start`);
    await expect409('start', 'running');
    await call(tenant, 'POST', `/api/experiments/${exp.id}/stop`);
    await expect409('stop', 'stopped');
    await call(tenant, 'DELETE', `/api/experiments/${exp.id}`);
    await expect409('start', 'archived');
    await expect409('stop', 'archived');
  });

  it('start needs 2+ variants summing to 100, an endDate ahead, and a plan with experiments', async () => {
    const tenant = await createTenant(t);
    const lonely = (
      await call(tenant, 'POST', '/api/experiments', {
        name: 'One',
        variants: [{ name: 'A', splitPercentage: 100 }],
      })
    ).json().data;
    const res = await call(tenant, 'POST', `/api/experiments/${lonely.id}/start`);
    expect(details(res, 400, 'VALIDATION_ERROR')[0]).toMatchObject({ path: 'variants' });
    const empty = (await call(tenant, 'POST', '/api/experiments', { name: 'None' })).json().data;
    expectError(await call(tenant, 'POST', `/api/experiments/${empty.id}/start`), 400, 'VALIDATION_ERROR');

    const ended = await createExperiment(tenant, { endDate: '2001-01-01T00:00:00Z' });
    const late = await call(tenant, 'POST', `/api/experiments/${ended.id}/start`);
    expect(details(late, 400, 'VALIDATION_ERROR')[0]).toMatchObject({ path: 'endDate' });

    const ok = await createExperiment(tenant);
    await setPlan(tenant.tenantId, 'starter');
    const gated = await call(tenant, 'POST', `/api/experiments/${ok.id}/start`);
    expectError(gated, 403, 'PLAN_FEATURE_UNAVAILABLE');
    // stop and delete stay possible after a downgrade
    await setPlan(tenant.tenantId, 'enterprise');
    await call(tenant, 'POST', `/api/experiments/${ok.id}/start`);
    await setPlan(tenant.tenantId, 'starter');
    expect((await call(tenant, 'POST', `/api/experiments/${ok.id}/stop`)).statusCode).toBe(200);
    expect((await call(tenant, 'DELETE', `/api/experiments/${ok.id}`)).statusCode).toBe(200);
    for (const e of [lonely, empty, ended])
      expect((await call(tenant, 'GET', `/api/experiments/${e.id}`)).json().data.status).toBe('draft');
  });

  it('completes running and stopped experiments once endDate passes (background job), audited as automatic', async () => {
    const tenant = await createTenant(t);
    const now = Date.parse('2031-05-01T00:00:00Z');
    t.clock.set(now);
    try {
      const soon = await createExperiment(tenant, { endDate: new Date(now + 60_000).toISOString() });
      const paused = await createExperiment(tenant, { endDate: new Date(now + 60_000).toISOString() });
      const later = await createExperiment(tenant, { endDate: new Date(now + 86_400_000).toISOString() });
      const draft = await createExperiment(tenant, { endDate: new Date(now + 60_000).toISOString() });
      for (const e of [soon, paused, later]) await call(tenant, 'POST', `/api/experiments/${e.id}/start`);
      await call(tenant, 'POST', `/api/experiments/${paused.id}/stop`);
      await t.runJob('experiment-completion');
      expect((await call(tenant, 'GET', `/api/experiments/${soon.id}`)).json().data.status).toBe('running');
      t.clock.advance(60_000);
      await t.runJob('experiment-completion');
      const status = async (id: string) =>
        (await call(tenant, 'GET', `/api/experiments/${id}`)).json().data.status;
      expect(await status(soon.id)).toBe('completed');
      expect(await status(paused.id)).toBe('completed');
      expect(await status(later.id)).toBe('running');
      expect(await status(draft.id)).toBe('draft');
      const entries = await auditEntries(t, tenant.tenantId, { action: 'EXPERIMENT_COMPLETED' });
      expect(entries.map((e) => [e.entityId, e.actorId, e.metadata])).toEqual(
        expect.arrayContaining([
          [soon.id, null, { from: 'running', to: 'completed', automatic: true }],
          [paused.id, null, { from: 'stopped', to: 'completed', automatic: true }],
        ]),
      );
      expect(entries).toHaveLength(2);
      // a completed experiment cannot start again
      const res = await call(tenant, 'POST', `/api/experiments/${soon.id}/start`);
      expectError(res, 409, 'INVALID_STATE_TRANSITION');
      const job = t.deps.modules.jobs.find((j) => j.name === 'experiment-completion');
      expect(job!.intervalMs).toBeLessThanOrEqual(60_000);
    } finally {
      t.clock.reset();
    }
  });

  it('deleting a flow with disableDependents stops the running experiments serving it', async () => {
    const tenant = await createTenant(t);
    const exp = await createExperiment(tenant);
    await call(tenant, 'POST', `/api/experiments/${exp.id}/start`);
    const res = await call(tenant, 'DELETE', `/api/flows/${exp.variants[1]!.flowId}?disableDependents=true`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().disabledDependents).toEqual([
      { type: 'experiment', id: exp.id, name: 'Onboarding test' },
    ]);
    expect((await call(tenant, 'GET', `/api/experiments/${exp.id}`)).json().data.status).toBe('stopped');
  });
});

describe('audience in use', () => {
  it('an audience an experiment targets cannot be deleted until the experiment is archived', async () => {
    const tenant = await createTenant(t);
    const audienceId = await insertAudience(t, tenant.tenantId);
    const exp = await createExperiment(tenant, { audienceId });
    const refused = await call(tenant, 'DELETE', `/api/audiences/${audienceId}`);
    expect(details(refused, 409, 'AUDIENCE_IN_USE')).toEqual([
      { type: 'experiment', id: exp.id, name: 'Onboarding test' },
    ]);
    await call(tenant, 'DELETE', `/api/experiments/${exp.id}`);
    expect((await call(tenant, 'DELETE', `/api/audiences/${audienceId}`)).statusCode).toBeLessThan(300);
  });
});

describe('roles and tenants', () => {
  it('viewers read (list, get, results, compute-results); editors and up write; viewers may not', async () => {
    const tenant = await createTenant(t);
    const exp = await createExperiment(tenant);
    const viewer = await tenant.as('VIEWER');
    const editor = await tenant.as('EDITOR');
    for (const [method, url] of [
      ['GET', '/api/experiments'],
      ['GET', `/api/experiments/${exp.id}`],
      ['GET', `/api/experiments/${exp.id}/results`],
      ['POST', `/api/experiments/${exp.id}/compute-results`],
    ] as const) {
      expect((await call(viewer, method, url)).statusCode, `${method} ${url}`).toBe(200);
    }
    for (const [method, url, body] of [
      ['POST', '/api/experiments', { name: 'X' }],
      ['PATCH', `/api/experiments/${exp.id}`, { name: 'Y' }],
      ['POST', `/api/experiments/${exp.id}/start`, undefined],
      ['POST', `/api/experiments/${exp.id}/stop`, undefined],
      ['DELETE', `/api/experiments/${exp.id}`, undefined],
    ] as const) {
      expectError(await call(viewer, method, url, body), 403, 'INSUFFICIENT_ROLE');
    }
    expect(
      (await call(editor, 'PATCH', `/api/experiments/${exp.id}`, { name: 'By editor' })).statusCode,
    ).toBe(200);
    expect((await call(editor, 'POST', `/api/experiments/${exp.id}/start`)).statusCode).toBe(200);
    expect((await call(editor, 'POST', '/api/experiments', { name: 'Editor made' })).statusCode).toBe(201);
    expectError(await t.inject({ method: 'GET', url: '/api/experiments' }), 401, 'AUTH_NO_TOKEN');
  });

  it("another tenant's experiment is not found by any route, and never listed", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const exp = await createExperiment(tenant);
    for (const [method, url, body] of [
      ['GET', `/api/experiments/${exp.id}`, undefined],
      ['PATCH', `/api/experiments/${exp.id}`, { name: 'Mine now' }],
      ['DELETE', `/api/experiments/${exp.id}`, undefined],
      ['POST', `/api/experiments/${exp.id}/start`, undefined],
      ['POST', `/api/experiments/${exp.id}/stop`, undefined],
      ['GET', `/api/experiments/${exp.id}/results`, undefined],
      ['POST', `/api/experiments/${exp.id}/compute-results`, undefined],
    ] as const) {
      expectError(await call(other, method, url, body), 404, 'CONTENT_NOT_FOUND');
    }
    expect((await call(other, 'GET', '/api/experiments')).json().data).toEqual([]);
    const mine = (await call(tenant, 'GET', `/api/experiments/${exp.id}`)).json().data;
    expect(mine).toMatchObject({ name: 'Onboarding test', status: 'draft' });
  });
});
