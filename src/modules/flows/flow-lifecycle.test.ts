import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  callAs,
  createFlow as createFlowFixture,
  createTenant,
  insertAudience,
  type TenantFixture,
} from '../../../test/helpers/factories.js';
import { auditLogs, type FlowStatus, flows } from '../../db/schema/index.js';
import type { DependentDisabler, Referrer } from '../../platform/references.js';
import { allModules } from '../index.js';
import { loadDeliverableFlows } from './delivery-contributor.js';
import { archiveExpiredFlows, publishDueFlows } from './scheduling.js';
import { flowLifecycle } from './transitions.js';

let t: TestApp;
let acme: TenantFixture;
/** What this file's test module does when a flow's dependents are disabled (tests set it). */
let testDisabler: DependentDisabler = async () => [];
const testModule = {
  name: 'test-dependents',
  dependentDisablers: [
    {
      target: 'flow' as const,
      name: 'test',
      disable: (...args: Parameters<DependentDisabler>) => testDisabler(...args),
    },
  ],
};

beforeAll(async () => {
  t = await createTestApp({ modules: [...allModules, testModule] });
  acme = await createTenant(t, { name: 'Acme' });
});
afterAll(() => t.close());

const HOUR = 3_600_000;

interface Flow {
  id: string;
  status: FlowStatus;
  updatedAt: string;
  archivedAt: string | null;
  publishedAt: string | null;
  steps: { id: string }[];
  [field: string]: unknown;
}

/** A flow with one MODAL step (the state tests check it is kept). */
const createFlow = async (tenant: TenantFixture, body: Record<string, unknown> = {}) =>
  (await createFlowFixture(t, tenant, {
    name: 'Lifecycle',
    template: 'CUSTOM',
    steps: [{ type: 'MODAL' }],
    ...body,
  })) as Flow;

/** A new flow brought to `state` through the API. */
async function flowIn(state: FlowStatus, tenant = acme): Promise<Flow> {
  const scheduledAt = state === 'SCHEDULED' ? new Date(Date.now() + 24 * HOUR).toISOString() : undefined;
  const flow = await createFlow(tenant, scheduledAt ? { scheduledAt } : {});
  const via = { DRAFT: null, PUBLISHED: 'publish', SCHEDULED: 'publish', ARCHIVED: 'archive' }[state];
  if (!via) return flow;
  const res = await callAs(t, tenant, 'POST', `/api/flows/${flow.id}/${via}`);
  expect(res.json().data.status).toBe(state);
  return res.json().data;
}

const auditRows = (entityId: string) =>
  t.deps.database.db
    .select()
    .from(auditLogs)
    .where(eq(auditLogs.entityId, entityId))
    .orderBy(auditLogs.createdAt, auditLogs.id);

const STATES: FlowStatus[] = ['DRAFT', 'PUBLISHED', 'SCHEDULED', 'ARCHIVED'];

interface Action {
  name: string;
  /** The action name reported in a 409's details. */
  tableAction: string;
  run: (flow: Flow) => ReturnType<typeof callAs>;
}

const ACTIONS: Action[] = [
  {
    name: 'publish',
    tableAction: 'publish',
    run: (f) => callAs(t, acme, 'POST', `/api/flows/${f.id}/publish`),
  },
  {
    name: 'archive',
    tableAction: 'archive',
    run: (f) => callAs(t, acme, 'POST', `/api/flows/${f.id}/archive`),
  },
  {
    name: 'restore',
    tableAction: 'restore',
    run: (f) => callAs(t, acme, 'POST', `/api/flows/${f.id}/restore`),
  },
  { name: 'delete', tableAction: 'delete', run: (f) => callAs(t, acme, 'DELETE', `/api/flows/${f.id}`) },
  {
    name: 'patch status DRAFT',
    tableAction: 'set-status-DRAFT',
    run: (f) => callAs(t, acme, 'PATCH', `/api/flows/${f.id}`, { status: 'DRAFT' }),
  },
  {
    name: 'patch status PUBLISHED',
    tableAction: 'set-status-PUBLISHED',
    run: (f) => callAs(t, acme, 'PATCH', `/api/flows/${f.id}`, { status: 'PUBLISHED' }),
  },
  {
    name: 'patch status SCHEDULED',
    tableAction: 'set-status-SCHEDULED',
    run: (f) => callAs(t, acme, 'PATCH', `/api/flows/${f.id}`, { status: 'SCHEDULED' }),
  },
  {
    name: 'patch status ARCHIVED',
    tableAction: 'set-status-ARCHIVED',
    run: (f) => callAs(t, acme, 'PATCH', `/api/flows/${f.id}`, { status: 'ARCHIVED' }),
  },
];

/** Expected next state for (state, action), or null for 409. Written out in full, not derived. */
const EXPECTED: Record<string, Record<FlowStatus, FlowStatus | null>> = {
  publish: { DRAFT: 'PUBLISHED', PUBLISHED: null, SCHEDULED: null, ARCHIVED: null },
  archive: { DRAFT: 'ARCHIVED', PUBLISHED: 'ARCHIVED', SCHEDULED: 'ARCHIVED', ARCHIVED: 'ARCHIVED' },
  restore: { DRAFT: null, PUBLISHED: null, SCHEDULED: null, ARCHIVED: 'DRAFT' },
  delete: { DRAFT: 'ARCHIVED', PUBLISHED: 'ARCHIVED', SCHEDULED: 'ARCHIVED', ARCHIVED: 'ARCHIVED' },
  'patch status DRAFT': { DRAFT: 'DRAFT', PUBLISHED: null, SCHEDULED: null, ARCHIVED: 'DRAFT' },
  'patch status PUBLISHED': { DRAFT: null, PUBLISHED: 'PUBLISHED', SCHEDULED: null, ARCHIVED: 'PUBLISHED' },
  'patch status SCHEDULED': { DRAFT: null, PUBLISHED: null, SCHEDULED: 'SCHEDULED', ARCHIVED: null },
  'patch status ARCHIVED': { DRAFT: null, PUBLISHED: null, SCHEDULED: null, ARCHIVED: 'ARCHIVED' },
};

describe('the flow transition table, every state × every action through HTTP', () => {
  for (const state of STATES) {
    for (const action of ACTIONS) {
      const expected = EXPECTED[action.name]![state];
      it(`${state} × ${action.name} → ${expected ?? '409'}`, async () => {
        const flow = await flowIn(state);
        const before = await auditRows(flow.id);
        const res = await action.run(flow);
        const after = (await callAs(t, acme, 'GET', `/api/flows/${flow.id}`)).json().data as Flow;
        if (expected === null) {
          const err = expectError(res, 409, 'INVALID_STATE_TRANSITION');
          expect(err.details).toEqual({ from: state, action: action.tableAction });
          expect(after).toEqual(flow);
          expect(await auditRows(flow.id)).toHaveLength(before.length);
          return;
        }
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data.status).toBe(expected);
        expect(res.json().data).toEqual(after);
        expect(after.steps).toHaveLength(1);
        const noOp = expected === state;
        if (noOp) {
          expect(after.updatedAt).toBe(flow.updatedAt);
          expect(await auditRows(flow.id)).toHaveLength(before.length);
        } else {
          expect(new Date(after.updatedAt).getTime()).toBeGreaterThanOrEqual(
            new Date(flow.updatedAt).getTime(),
          );
          expect(after.archivedAt === null).toBe(expected !== 'ARCHIVED');
          if (expected === 'PUBLISHED') expect(after.publishedAt).not.toBeNull();
          expect((await auditRows(flow.id)).length).toBeGreaterThan(before.length);
        }
      });
    }
  }

  it('has a row for every action, and the table agrees with the HTTP expectations', () => {
    for (const action of ACTIONS) {
      for (const state of STATES) {
        expect(flowLifecycle.allows(state, action.tableAction as never)).toBe(
          EXPECTED[action.name]![state] !== null,
        );
      }
    }
  });
});

describe('publish', () => {
  it('publishes a draft whose scheduledAt is in the future as SCHEDULED, by the injected clock', async () => {
    const now = Date.UTC(2031, 0, 1);
    t.clock.set(now);
    try {
      const future = await createFlow(acme, { scheduledAt: new Date(now + HOUR).toISOString() });
      const res = await callAs(t, acme, 'POST', `/api/flows/${future.id}/publish`);
      expect(res.json().data).toMatchObject({ status: 'SCHEDULED', publishedAt: null });

      const past = await createFlow(acme, { scheduledAt: new Date(now - HOUR).toISOString() });
      const published = (await callAs(t, acme, 'POST', `/api/flows/${past.id}/publish`)).json().data;
      expect(published).toMatchObject({ status: 'PUBLISHED', publishedAt: new Date(now).toISOString() });

      // Moving the clock past scheduledAt makes the same kind of flow publish at once.
      const later = await createFlow(acme, { scheduledAt: new Date(now + HOUR).toISOString() });
      t.clock.set(now + 2 * HOUR);
      expect((await callAs(t, acme, 'POST', `/api/flows/${later.id}/publish`)).json().data.status).toBe(
        'PUBLISHED',
      );
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('refuses to publish a flow whose expiresAt has passed (400 at expiresAt)', async () => {
    const flow = await createFlow(acme, { expiresAt: new Date(Date.now() + HOUR).toISOString() });
    t.clock.set(Date.now() + 2 * HOUR);
    try {
      const err = expectError(
        await callAs(t, acme, 'POST', `/api/flows/${flow.id}/publish`),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([{ path: 'expiresAt', message: expect.any(String) }]);
      await callAs(t, acme, 'POST', `/api/flows/${flow.id}/archive`);
      const restore = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, { status: 'PUBLISHED' });
      expectError(restore, 400, 'VALIDATION_ERROR');
      const moved = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {
        status: 'PUBLISHED',
        expiresAt: new Date(Date.now() + 3 * HOUR).toISOString(),
      });
      expect(moved.json().data.status).toBe('PUBLISHED');
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('writes FLOW_PUBLISHED and FLOW_ARCHIVED with the actor and the transition', async () => {
    const flow = await createFlow(acme);
    await callAs(t, acme, 'POST', `/api/flows/${flow.id}/publish`);
    await callAs(t, acme, 'POST', `/api/flows/${flow.id}/archive`);
    await callAs(t, acme, 'POST', `/api/flows/${flow.id}/restore`);
    await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, { status: 'ARCHIVED' }).then((r) =>
      expect(r.statusCode).toBe(409),
    );
    await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}`);
    const rows = await auditRows(flow.id);
    expect(rows.map((r) => [r.action, r.metadata])).toEqual([
      ['FLOW_CREATED', expect.any(Object)],
      ['FLOW_PUBLISHED', expect.objectContaining({ from: 'DRAFT', to: 'PUBLISHED', action: 'publish' })],
      ['FLOW_ARCHIVED', expect.objectContaining({ from: 'PUBLISHED', to: 'ARCHIVED', action: 'archive' })],
      ['FLOW_UPDATED', expect.objectContaining({ from: 'ARCHIVED', to: 'DRAFT', action: 'restore' })],
      ['FLOW_ARCHIVED', expect.objectContaining({ from: 'DRAFT', to: 'ARCHIVED', action: 'delete' })],
    ]);
    expect(rows.every((r) => r.actorId === acme.owner.userId && r.tenantId === acme.tenantId)).toBe(true);
  });

  it('restoring by PATCH to PUBLISHED writes FLOW_UPDATED and FLOW_PUBLISHED', async () => {
    const flow = await flowIn('ARCHIVED');
    const res = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {
      status: 'PUBLISHED',
      name: 'Back',
    });
    expect(res.json().data).toMatchObject({ status: 'PUBLISHED', name: 'Back', archivedAt: null });
    const rows = await auditRows(flow.id);
    expect(rows.slice(-2).map((r) => [r.action, r.metadata])).toEqual([
      [
        'FLOW_UPDATED',
        expect.objectContaining({ changed: ['name', 'status'], from: 'ARCHIVED', to: 'PUBLISHED' }),
      ],
      ['FLOW_PUBLISHED', expect.objectContaining({ from: 'ARCHIVED', to: 'PUBLISHED' })],
    ]);
  });
});

describe('DELETE /api/flows/:id', () => {
  it('soft-deletes to ARCHIVED keeping the record and steps, hidden from the default list', async () => {
    const flow = await flowIn('PUBLISHED');
    const res = await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: { ...flow, status: 'ARCHIVED', archivedAt: expect.any(String), updatedAt: expect.any(String) },
      disabledDependents: [],
    });
    expect((await callAs(t, acme, 'GET', `/api/flows/${flow.id}`)).json().data.steps).toHaveLength(1);
    const list = (await callAs(t, acme, 'GET', '/api/flows?limit=100')).json().data.map((f: Flow) => f.id);
    expect(list).not.toContain(flow.id);
    expectError(
      await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}?disableDependents=yes`),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('disables dependents in the same transaction with disableDependents=true, and not otherwise', async () => {
    const calls: { tenantId: string; flowId: string }[] = [];
    testDisabler = async (exec, tenantId, flowId): Promise<Referrer[]> => {
      calls.push({ tenantId, flowId });
      // Reads through the executor it is given (the delete's transaction) before the flow is archived.
      const [row] = await exec.select({ status: flows.status }).from(flows).where(eq(flows.id, flowId));
      return [{ type: 'journey', id: `j-${row!.status}`, name: 'Welcome journey' }];
    };
    try {
      const plain = await flowIn('PUBLISHED');
      const res1 = await callAs(t, acme, 'DELETE', `/api/flows/${plain.id}?disableDependents=false`);
      expect(res1.json().disabledDependents).toEqual([]);
      expect(calls).toEqual([]);

      const flow = await flowIn('PUBLISHED');
      const res = await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}?disableDependents=true`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.status).toBe('ARCHIVED');
      expect(res.json().disabledDependents).toEqual([
        { type: 'journey', id: 'j-PUBLISHED', name: 'Welcome journey' },
      ]);
      expect(calls).toEqual([{ tenantId: acme.tenantId, flowId: flow.id }]);
      const archived = (await auditRows(flow.id)).at(-1)!;
      expect(archived).toMatchObject({ action: 'FLOW_ARCHIVED' });
      expect(archived.metadata).toMatchObject({
        disabledDependents: [{ type: 'journey', id: 'j-PUBLISHED' }],
      });
    } finally {
      testDisabler = async () => [];
    }
  });

  it('rolls the archive back when a disabler fails', async () => {
    testDisabler = async () => {
      throw new Error('journey store down');
    };
    try {
      const flow = await flowIn('PUBLISHED');
      const res = await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}?disableDependents=true`);
      expectError(res, 500, 'INTERNAL_ERROR');
      expect((await callAs(t, acme, 'GET', `/api/flows/${flow.id}`)).json().data.status).toBe('PUBLISHED');
    } finally {
      testDisabler = async () => [];
    }
  });
});

describe('scheduled publish and expiry', () => {
  // Far ahead of anything other tests create, and each test drains what is due first, so the
  // counts below are exactly this test's flows.
  let base = Date.UTC(2090, 0, 1);
  const drain = async (at: number) => {
    await archiveExpiredFlows(t.deps.database.db, new Date(at));
    await publishDueFlows(t.deps.database.db, new Date(at));
  };
  const status = async (id: string) =>
    (await t.deps.database.db.select({ s: flows.status }).from(flows).where(eq(flows.id, id)))[0]!.s;

  async function scheduled(at: number, opts: { scheduledAt?: number; expiresAt?: number } = {}) {
    t.clock.set(at);
    try {
      const flow = await createFlow(acme, {
        scheduledAt: new Date(opts.scheduledAt ?? at + HOUR).toISOString(),
        ...(opts.expiresAt ? { expiresAt: new Date(opts.expiresAt).toISOString() } : {}),
      });
      expect((await callAs(t, acme, 'POST', `/api/flows/${flow.id}/publish`)).json().data.status).toBe(
        'SCHEDULED',
      );
      return flow;
    } finally {
      t.clock.set(Date.now());
    }
  }

  it('publishDueFlows publishes SCHEDULED flows whose scheduledAt has come, once, with one audit row each', async () => {
    base += 10 * 24 * HOUR;
    await drain(base);
    const due1 = await scheduled(base, { scheduledAt: base + HOUR });
    const due2 = await scheduled(base, { scheduledAt: base + 2 * HOUR });
    const notYet = await scheduled(base, { scheduledAt: base + 5 * HOUR });
    const draft = await createFlow(acme, { scheduledAt: new Date(base + HOUR).toISOString() });

    const now = new Date(base + 2 * HOUR);
    const counts = await Promise.all([
      publishDueFlows(t.deps.database.db, now),
      publishDueFlows(t.deps.database.db, now),
      publishDueFlows(t.deps.database.db, now),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
    expect(await status(due1.id)).toBe('PUBLISHED');
    expect(await status(due2.id)).toBe('PUBLISHED');
    expect(await status(notYet.id)).toBe('SCHEDULED');
    expect(await status(draft.id)).toBe('DRAFT');
    for (const id of [due1.id, due2.id]) {
      const rows = (await auditRows(id)).filter((r) => r.action === 'FLOW_PUBLISHED' && r.actorId === null);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        tenantId: acme.tenantId,
        entityType: 'flow',
        metadata: { automatic: true },
      });
    }
    const [row] = await t.deps.database.db.select().from(flows).where(eq(flows.id, due1.id));
    expect(row!.publishedAt).toEqual(now);
    expect(await publishDueFlows(t.deps.database.db, now)).toBe(0);
    expect(await publishDueFlows(t.deps.database.db, new Date(base + 5 * HOUR))).toBe(1);
    expect(await status(notYet.id)).toBe('PUBLISHED');
  });

  it('archiveExpiredFlows archives PUBLISHED and SCHEDULED flows past expiresAt, once each', async () => {
    base += 10 * 24 * HOUR;
    await drain(base);
    t.clock.set(base);
    const live = await createFlow(acme, { expiresAt: new Date(base + HOUR).toISOString() });
    await callAs(t, acme, 'POST', `/api/flows/${live.id}/publish`);
    const liveLonger = await createFlow(acme, { expiresAt: new Date(base + 10 * HOUR).toISOString() });
    await callAs(t, acme, 'POST', `/api/flows/${liveLonger.id}/publish`);
    const forever = await createFlow(acme);
    await callAs(t, acme, 'POST', `/api/flows/${forever.id}/publish`);
    const draft = await createFlow(acme, { expiresAt: new Date(base + HOUR).toISOString() });
    t.clock.set(Date.now());
    const sched = await scheduled(base, { scheduledAt: base + HOUR, expiresAt: base + 2 * HOUR });

    const now = new Date(base + 3 * HOUR);
    const counts = await Promise.all([
      archiveExpiredFlows(t.deps.database.db, now),
      archiveExpiredFlows(t.deps.database.db, now),
    ]);
    expect(counts[0]! + counts[1]!).toBe(2);
    expect(await status(live.id)).toBe('ARCHIVED');
    expect(await status(sched.id)).toBe('ARCHIVED');
    expect(await status(liveLonger.id)).toBe('PUBLISHED');
    expect(await status(forever.id)).toBe('PUBLISHED');
    expect(await status(draft.id)).toBe('DRAFT');
    for (const id of [live.id, sched.id]) {
      const rows = (await auditRows(id)).filter((r) => r.action === 'FLOW_ARCHIVED');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actorId: null, metadata: { automatic: true } });
    }
    const [row] = await t.deps.database.db.select().from(flows).where(eq(flows.id, live.id));
    expect(row!.archivedAt).toEqual(now);
    expect(await archiveExpiredFlows(t.deps.database.db, now)).toBe(0);
    // Archive expired first, then publish: a scheduled flow past both dates is archived, not published.
    await callAs(t, acme, 'POST', `/api/flows/${forever.id}/archive`);
  });

  it('runs concurrently with itself from two app instances without double moves', async () => {
    base += 10 * 24 * HOUR;
    await drain(base);
    const second = await createTestApp({ db: t.db, redisPrefix: t.config.redisPrefix });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await scheduled(base, { scheduledAt: base + HOUR })).id);
      const now = new Date(base + HOUR);
      const counts = await Promise.all([
        publishDueFlows(t.deps.database.db, now),
        publishDueFlows(second.deps.database.db, now),
      ]);
      expect(counts[0]! + counts[1]!).toBe(6);
      const audits = await t.deps.database.db
        .select()
        .from(auditLogs)
        .where(and(inArray(auditLogs.entityId, ids), eq(auditLogs.action, 'FLOW_PUBLISHED')));
      expect(audits.filter((a) => a.actorId === null)).toHaveLength(6);
    } finally {
      await second.close();
    }
  });
});

describe('loadDeliverableFlows', () => {
  it('returns PUBLISHED, unexpired flows of the tenant with ordered steps', async () => {
    const tenant = await createTenant(t);
    const now = Date.now();
    const a = await createFlow(tenant, {
      name: 'A',
      steps: [
        { type: 'MODAL', content: { title: '1' } },
        { type: 'WAIT', content: { title: '2' } },
      ],
    });
    await callAs(t, tenant, 'POST', `/api/flows/${a.id}/publish`);
    await callAs(t, tenant, 'POST', `/api/flows/${a.id}/steps/reorder`, {
      stepIds: [a.steps[1]!.id, a.steps[0]!.id],
    });
    // The reorder is an unpublished change until published again (docs/versions.md).
    await callAs(t, tenant, 'POST', `/api/flows/${a.id}/publish`);
    const b = await createFlow(tenant, {
      name: 'B',
      expiresAt: new Date(now + HOUR).toISOString(),
      steps: [],
    });
    await callAs(t, tenant, 'POST', `/api/flows/${b.id}/publish`);
    const expiringSoon = await createFlow(tenant, {
      name: 'C',
      expiresAt: new Date(now + 60_000).toISOString(),
    });
    await callAs(t, tenant, 'POST', `/api/flows/${expiringSoon.id}/publish`);
    await createFlow(tenant, { name: 'draft' });
    const archived = await createFlow(tenant, { name: 'archived' });
    await callAs(t, tenant, 'POST', `/api/flows/${archived.id}/publish`);
    await callAs(t, tenant, 'POST', `/api/flows/${archived.id}/archive`);
    await flowIn('PUBLISHED'); // another tenant's

    const list = await loadDeliverableFlows(t.deps.database.db, tenant.tenantId, new Date(now + 2 * 60_000));
    expect(list.map((f) => f.name).sort()).toEqual(['A', 'B']);
    const fa = list.find((f) => f.name === 'A')!;
    expect(fa.steps.map((s) => [s.content.title, s.order])).toEqual([
      ['2', 0],
      ['1', 1],
    ]);
    expect(list.find((f) => f.name === 'B')!.steps).toEqual([]);
    expect(list.every((f) => f.tenantId === tenant.tenantId && f.status === 'PUBLISHED')).toBe(true);
    expect(
      await loadDeliverableFlows(t.deps.database.db, tenant.tenantId, new Date(now + 2 * HOUR)),
    ).toHaveLength(1);
  });
});

describe('audience references', () => {
  it('reports non-archived flows that use an audience', async () => {
    const tenant = await createTenant(t);
    const audienceId = await insertAudience(t, tenant.tenantId);
    const used = await createFlow(tenant, { name: 'Uses it', audienceId });
    const archived = await createFlow(tenant, { name: 'Archived user', audienceId });
    await callAs(t, tenant, 'POST', `/api/flows/${archived.id}/archive`);
    await createFlow(tenant, { name: 'No audience' });
    const db = t.deps.database.db;
    expect(await t.deps.references.findReferrers(db, 'audience', tenant.tenantId, audienceId)).toContainEqual(
      {
        type: 'flow',
        id: used.id,
        name: 'Uses it',
      },
    );
    const refs = (await t.deps.references.findReferrers(db, 'audience', tenant.tenantId, audienceId)).filter(
      (r) => r.type === 'flow',
    );
    expect(refs).toEqual([{ type: 'flow', id: used.id, name: 'Uses it' }]);
    expect(
      (await t.deps.references.findReferrers(db, 'audience', acme.tenantId, audienceId)).filter(
        (r) => r.type === 'flow',
      ),
    ).toEqual([]);
  });
});
