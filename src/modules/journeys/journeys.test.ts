import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  auditEntries,
  callAs,
  createFlow,
  createTenant,
  insertAudience,
  TEST_SITE_ID,
  type TenantFixture,
} from '../../../test/helpers/factories.js';

/** The /api/journeys routes through HTTP: canvas, lifecycle, validation, roles, plans, isolation. */

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  other = await createTenant(t);
});
afterAll(() => t.close());

const SITE = TEST_SITE_ID;
const UNKNOWN = '01900000-0000-7000-8000-000000000000';
const at = { x: 0, y: 0 };

const ids = () => ({
  trigger: randomUUID(),
  wait: randomUUID(),
  content: randomUUID(),
  check: randomUUID(),
  exit: randomUUID(),
  exit2: randomUUID(),
});

/** TRIGGER(CUSTOM_EVENT signup) → WAIT 1 min → CONTENT(flow) → EXIT. */
function simpleCanvas(flowId: string, n = ids()) {
  return {
    n,
    nodes: [
      {
        id: n.trigger,
        type: 'TRIGGER',
        config: { triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'signup' } },
        position: at,
      },
      { id: n.wait, type: 'WAIT', config: { duration: 60_000 }, position: { x: 1, y: 2 } },
      { id: n.content, type: 'CONTENT', config: { contentType: 'flow' }, contentId: flowId, position: at },
      { id: n.exit, type: 'EXIT', config: {}, position: at },
    ] as Record<string, unknown>[],
    edges: [
      { sourceNodeId: n.trigger, targetNodeId: n.wait },
      { sourceNodeId: n.wait, targetNodeId: n.content },
      { sourceNodeId: n.content, targetNodeId: n.exit },
    ],
  };
}

async function create(tenant: TenantFixture, body: Record<string, unknown> = {}) {
  const res = await callAs(t, tenant, 'POST', '/api/journeys', { name: 'Onboarding', siteId: SITE, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('POST /api/journeys', () => {
  it('creates a draft with its canvas (supplied ids kept, others generated) and audits it', async () => {
    const flow = await createFlow(t, acme);
    const { nodes, edges, n } = simpleCanvas(flow.id);
    const audienceId = await insertAudience(t, acme.tenantId);
    const extra = { type: 'EXIT', config: {}, position: at };
    const journey = await create(acme, {
      name: '  Trial nurture  ',
      description: 'Three days after signup',
      audienceId,
      settings: { reentry: 'after_exit', color: 'blue' },
      goalConfig: { type: 'event', config: { eventName: 'project_created' }, deadline: 7 },
      allowAnonymous: true,
      nodes: [...nodes, extra],
      edges,
    });
    expect(journey).toMatchObject({
      name: 'Trial nurture',
      status: 'DRAFT',
      tenantId: acme.tenantId,
      siteId: SITE,
      audienceId,
      audience: { id: audienceId },
      settings: { reentry: 'after_exit', color: 'blue' },
      goalConfig: { type: 'event', config: { eventName: 'project_created' }, deadline: 7 },
      allowAnonymous: true,
      publishedAt: null,
      _count: { nodes: 5, edges: 3, enrollments: 0 },
    });
    expect(journey.nodes.map((x: { id: string }) => x.id).slice(0, 4)).toEqual([
      n.trigger,
      n.wait,
      n.content,
      n.exit,
    ]);
    expect(journey.nodes[4].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(journey.nodes[1]).toEqual({
      id: n.wait,
      type: 'WAIT',
      config: { duration: 60_000 },
      contentId: null,
      position: { x: 1, y: 2 },
    });
    expect(journey.nodes[2].contentId).toBe(flow.id);
    expect(journey.edges[0]).toEqual({ sourceNodeId: n.trigger, targetNodeId: n.wait, label: null });
    const [entry] = await auditEntries(t, acme.tenantId, { action: 'JOURNEY_CREATED', entityId: journey.id });
    expect(entry?.metadata).toMatchObject({ nodes: 5, edges: 3 });
  });

  it('defaults: no canvas, reentry never, no goal, not anonymous', async () => {
    const journey = await create(acme);
    expect(journey).toMatchObject({
      nodes: [],
      edges: [],
      settings: { reentry: 'never' },
      goalConfig: null,
      allowAnonymous: false,
      audience: null,
      description: null,
    });
  });

  it('checks shapes: name, siteId, node configs per type, edges naming nodes of the body, unique ids', async () => {
    const bad = async (body: Record<string, unknown>, path: string) => {
      const res = await callAs(t, acme, 'POST', '/api/journeys', { name: 'J', siteId: SITE, ...body });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect((error.details as { path: string }[]).map((d) => d.path)).toContain(path);
    };
    await bad({ name: '' }, 'name');
    await bad({ name: 'x'.repeat(256) }, 'name');
    await bad({ siteId: 'nope' }, 'siteId');
    const id = randomUUID();
    await bad(
      { nodes: [{ id, type: 'WAIT', config: { duration: 5 }, position: at }] },
      'nodes.0.config.duration',
    );
    await bad(
      { nodes: [{ type: 'CONTENT', config: { contentType: 'flow' }, position: at }] },
      'nodes.0.contentId',
    );
    await bad({ nodes: [{ type: 'TELEPORT', config: {}, position: at }] }, 'nodes.0.type');
    await bad(
      {
        nodes: [{ id, type: 'EXIT', config: {}, position: at }],
        edges: [{ sourceNodeId: id, targetNodeId: randomUUID() }],
      },
      'edges.0.targetNodeId',
    );
    await bad(
      {
        nodes: [
          { id, type: 'EXIT', config: {}, position: at },
          { id, type: 'EXIT', config: {}, position: at },
        ],
      },
      'nodes.1.id',
    );
    await bad({ goalConfig: { type: 'event', config: {} } }, 'goalConfig.config.eventName');
    await bad({ settings: { reentry: 'sometimes' } }, 'settings.reentry');
    await bad({ audienceId: UNKNOWN }, 'audienceId');
  });

  it('refuses viewers, and a plan without journeys; counts the plan limit', async () => {
    const viewer = await acme.as('VIEWER');
    expectError(
      await callAs(t, viewer, 'POST', '/api/journeys', { name: 'J', siteId: SITE }),
      403,
      'INSUFFICIENT_ROLE',
    );
    const free = await createTenant(t, { plan: 'free' });
    const error = expectError(
      await callAs(t, free, 'POST', '/api/journeys', { name: 'J', siteId: SITE }),
      403,
      'PLAN_FEATURE_UNAVAILABLE',
    );
    expect(error.details).toMatchObject({ feature: 'journeys' });
    const starter = await createTenant(t, { plan: 'starter' });
    for (let i = 0; i < 10; i++) await create(starter);
    const limit = expectError(
      await callAs(t, starter, 'POST', '/api/journeys', { name: 'J', siteId: SITE }),
      403,
      'PLAN_LIMIT_REACHED',
    );
    expect(limit.details).toMatchObject({ feature: 'journeys', used: 10, limit: 10 });
    // An archived journey does not count; restoring it does.
    const list = (await callAs(t, starter, 'GET', '/api/journeys?limit=1')).json().data;
    await callAs(t, starter, 'DELETE', `/api/journeys/${list[0].id}`);
    await create(starter);
    expectError(
      await callAs(t, starter, 'POST', `/api/journeys/${list[0].id}/restore`),
      403,
      'PLAN_LIMIT_REACHED',
    );
  });
});

describe('GET /api/journeys', () => {
  it('lists with _count and meta, filters by status and siteId, hides archived by default, isolates tenants', async () => {
    const tenant = await createTenant(t);
    const flow = await createFlow(t, tenant);
    const { nodes, edges } = simpleCanvas(flow.id);
    const a = await create(tenant, { name: 'A', nodes, edges });
    const b = await create(tenant, { name: 'B', siteId: randomUUID() });
    const c = await create(tenant, { name: 'C' });
    await callAs(t, tenant, 'DELETE', `/api/journeys/${c.id}`);
    await callAs(t, tenant, 'POST', `/api/journeys/${a.id}/publish`);

    const all = (await callAs(t, tenant, 'GET', '/api/journeys')).json();
    expect(all.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(all.data.map((j: { name: string }) => j.name)).toEqual(['B', 'A']);
    expect(all.data[1]._count).toEqual({ nodes: 4, edges: 3, enrollments: 0 });
    expect(all.data[1]).not.toHaveProperty('nodes');
    const published = (await callAs(t, tenant, 'GET', '/api/journeys?status=PUBLISHED')).json().data;
    expect(published.map((j: { id: string }) => j.id)).toEqual([a.id]);
    const archived = (await callAs(t, tenant, 'GET', '/api/journeys?status=ARCHIVED')).json().data;
    expect(archived.map((j: { id: string }) => j.id)).toEqual([c.id]);
    const site = (await callAs(t, tenant, 'GET', `/api/journeys?siteId=${b.siteId}`)).json().data;
    expect(site.map((j: { id: string }) => j.id)).toEqual([b.id]);
    const paged = (await callAs(t, tenant, 'GET', '/api/journeys?limit=1&page=2')).json();
    expect(paged.meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expectError(await callAs(t, tenant, 'GET', '/api/journeys?status=LIVE'), 400, 'VALIDATION_ERROR');
    expect((await callAs(t, other, 'GET', '/api/journeys')).json().data).toEqual([]);
  });
});

describe('GET, PATCH, PUT /canvas', () => {
  it('gets one journey; another tenant or an unknown id is 404', async () => {
    const journey = await create(acme);
    expect((await callAs(t, acme, 'GET', `/api/journeys/${journey.id}`)).json().data.id).toBe(journey.id);
    expectError(await callAs(t, other, 'GET', `/api/journeys/${journey.id}`), 404, 'CONTENT_NOT_FOUND');
    expectError(await callAs(t, acme, 'GET', `/api/journeys/${UNKNOWN}`), 404, 'CONTENT_NOT_FOUND');
    expectError(await callAs(t, acme, 'GET', '/api/journeys/not-a-uuid'), 404, 'CONTENT_NOT_FOUND');
  });

  it('PATCH updates fields but never the canvas; a no-op writes nothing; audits the changed fields', async () => {
    const flow = await createFlow(t, acme);
    const { nodes, edges } = simpleCanvas(flow.id);
    const journey = await create(acme, { nodes, edges });
    const res = await callAs(t, acme, 'PATCH', `/api/journeys/${journey.id}`, {
      name: 'Renamed',
      allowAnonymous: true,
      nodes: [],
      edges: [],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Renamed',
      allowAnonymous: true,
      _count: { nodes: 4, edges: 3 },
    });
    const same = await callAs(t, acme, 'PATCH', `/api/journeys/${journey.id}`, { name: 'Renamed' });
    expect(same.json().data.updatedAt).toBe(res.json().data.updatedAt);
    const updates = await auditEntries(t, acme.tenantId, { action: 'JOURNEY_UPDATED', entityId: journey.id });
    expect(updates.map((u) => u.metadata)).toEqual([{ changed: ['name', 'allowAnonymous'] }]);
    expectError(
      await callAs(t, acme, 'PATCH', `/api/journeys/${journey.id}`, { goalConfig: { type: 'nope' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await callAs(t, other, 'PATCH', `/api/journeys/${journey.id}`, { name: 'x' }),
      404,
      'CONTENT_NOT_FOUND',
    );
  });

  it('PUT /canvas replaces the whole canvas atomically, keeping supplied ids', async () => {
    const flow = await createFlow(t, acme);
    const first = simpleCanvas(flow.id);
    const journey = await create(acme, { nodes: first.nodes, edges: first.edges });
    const exit = randomUUID();
    const res = await callAs(t, acme, 'PUT', `/api/journeys/${journey.id}/canvas`, {
      nodes: [
        first.nodes[0],
        { id: exit, type: 'EXIT', config: {}, position: at },
        { type: 'WAIT', config: { duration: 1000 }, position: at },
      ],
      edges: [{ sourceNodeId: first.n.trigger, targetNodeId: exit }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json().data;
    expect(body.nodes.map((x: { id: string }) => x.id).slice(0, 2)).toEqual([first.n.trigger, exit]);
    expect(body._count).toMatchObject({ nodes: 3, edges: 1 });
    // A refused body changes nothing (atomic).
    const bad = await callAs(t, acme, 'PUT', `/api/journeys/${journey.id}/canvas`, {
      nodes: [{ type: 'WAIT', config: { duration: 0 }, position: at }],
      edges: [],
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    const after = (await callAs(t, acme, 'GET', `/api/journeys/${journey.id}`)).json().data;
    expect(after.nodes).toHaveLength(3);
    expectError(
      await callAs(t, other, 'PUT', `/api/journeys/${journey.id}/canvas`, { nodes: [], edges: [] }),
      404,
      'CONTENT_NOT_FOUND',
    );
    const viewer = await acme.as('VIEWER');
    expectError(
      await callAs(t, viewer, 'PUT', `/api/journeys/${journey.id}/canvas`, { nodes: [], edges: [] }),
      403,
      'INSUFFICIENT_ROLE',
    );
  });

  it('a live journey edits a working copy (not validated until republished: 400 naming the node); archived refuses the canvas (409)', async () => {
    const flow = await createFlow(t, acme);
    const c = simpleCanvas(flow.id);
    const journey = await create(acme, { nodes: c.nodes, edges: c.edges });
    expect((await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`)).statusCode).toBe(200);
    // Issue 39: the canvas of a published journey is its working copy; publish validates it.
    const res = await callAs(t, acme, 'PUT', `/api/journeys/${journey.id}/canvas`, {
      nodes: c.nodes,
      edges: c.edges.slice(0, 2),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'PUBLISHED', version: 1, hasUnpublishedChanges: true });
    const error = expectError(
      await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([
      { path: 'nodes[2]', nodeId: c.n.content, message: 'a CONTENT needs an unlabelled edge leaving it' },
      { path: 'nodes[3]', nodeId: c.n.exit, message: 'not reachable from the TRIGGER' },
    ]);
    await callAs(t, acme, 'DELETE', `/api/journeys/${journey.id}`);
    expectError(
      await callAs(t, acme, 'PUT', `/api/journeys/${journey.id}/canvas`, { nodes: [], edges: [] }),
      409,
      'INVALID_STATE_TRANSITION',
    );
  });
});

describe('lifecycle', () => {
  it('publish → pause → publish (resume) → unpublish → archive → restore, each audited', async () => {
    const flow = await createFlow(t, acme);
    const c = simpleCanvas(flow.id);
    const journey = await create(acme, { nodes: c.nodes, edges: c.edges });
    const go = async (action: string, status: number, to?: string) => {
      const res = await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/${action}`);
      expect(res.statusCode, res.body).toBe(status);
      if (to) expect(res.json().data.status).toBe(to);
      return res;
    };
    expectError(await go('pause', 409), 409, 'INVALID_STATE_TRANSITION');
    expectError(await go('unpublish', 409), 409, 'INVALID_STATE_TRANSITION');
    expectError(await go('restore', 409), 409, 'INVALID_STATE_TRANSITION');
    const published = (await go('publish', 200, 'PUBLISHED')).json().data;
    expect(published.publishedAt).not.toBeNull();
    expectError(await go('publish', 409), 409, 'INVALID_STATE_TRANSITION');
    await go('pause', 200, 'PAUSED');
    expectError(await go('unpublish', 409), 409, 'INVALID_STATE_TRANSITION');
    await go('publish', 200, 'PUBLISHED');
    await go('unpublish', 200, 'DRAFT');
    const del = await callAs(t, acme, 'DELETE', `/api/journeys/${journey.id}`);
    expect(del.json().data).toMatchObject({ status: 'ARCHIVED', archivedAt: expect.any(String) });
    expect((await callAs(t, acme, 'DELETE', `/api/journeys/${journey.id}`)).statusCode).toBe(200);
    await go('restore', 200, 'DRAFT');
    const actions = (await auditEntries(t, acme.tenantId, { entityId: journey.id })).map((a) => a.action);
    expect(actions).toEqual([
      'JOURNEY_CREATED',
      'JOURNEY_PUBLISHED',
      'JOURNEY_PAUSED',
      'JOURNEY_PUBLISHED',
      'JOURNEY_UPDATED',
      'JOURNEY_ARCHIVED',
      'JOURNEY_UPDATED',
    ]);
    const editor = await acme.as('EDITOR');
    expect((await callAs(t, editor, 'POST', `/api/journeys/${journey.id}/publish`)).statusCode).toBe(200);
    const viewer = await acme.as('VIEWER');
    expectError(
      await callAs(t, viewer, 'POST', `/api/journeys/${journey.id}/pause`),
      403,
      'INSUFFICIENT_ROLE',
    );
    expectError(await callAs(t, viewer, 'DELETE', `/api/journeys/${journey.id}`), 403, 'INSUFFICIENT_ROLE');
    expectError(
      await callAs(t, other, 'POST', `/api/journeys/${journey.id}/pause`),
      404,
      'CONTENT_NOT_FOUND',
    );
  });

  it('publish validates the graph and names each offending node by index and id', async () => {
    const n = ids();
    const split = randomUUID();
    const journey = await create(acme, {
      nodes: [
        {
          id: n.trigger,
          type: 'TRIGGER',
          config: { triggerType: 'MANUAL', triggerConfig: {} },
          position: at,
        },
        {
          id: n.content,
          type: 'CONTENT',
          config: { contentType: 'tooltip' },
          contentId: UNKNOWN,
          position: at,
        },
        {
          id: split,
          type: 'SPLIT',
          config: {
            branches: [
              { label: 'a', percentage: 50 },
              { label: 'b', percentage: 40 },
            ],
          },
          position: at,
        },
        { id: n.check, type: 'GOAL_CHECK', config: {}, position: at },
        {
          id: n.wait,
          type: 'CONDITION',
          config: { ruleTree: { field: 'traits.x', operator: 'eq', value: 1 } },
          position: at,
        },
        { id: n.exit, type: 'EXIT', config: {}, position: at },
      ],
      edges: [
        { sourceNodeId: n.trigger, targetNodeId: n.content },
        { sourceNodeId: n.content, targetNodeId: split },
        { sourceNodeId: split, targetNodeId: n.check, label: 'a' },
        { sourceNodeId: split, targetNodeId: n.exit, label: 'b' },
        { sourceNodeId: n.check, targetNodeId: n.wait, label: 'met' },
        { sourceNodeId: n.check, targetNodeId: n.exit, label: 'not_met' },
        { sourceNodeId: n.wait, targetNodeId: n.check, label: 'true' },
        { sourceNodeId: n.wait, targetNodeId: n.exit, label: 'yes' },
      ],
    });
    const error = expectError(
      await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([
      { path: 'nodes[1]', nodeId: n.content, message: `tooltip ${UNKNOWN} does not exist or is archived` },
      {
        path: 'nodes[2]',
        nodeId: split,
        message: 'SPLIT branch percentages must sum to 100 (they sum to 90)',
      },
      { path: 'nodes[3]', nodeId: n.check, message: 'a GOAL_CHECK needs the journey to have a goalConfig' },
      {
        path: 'nodes[3]',
        nodeId: n.check,
        message: expect.stringMatching(/^a cycle through nodes\[3\], nodes\[4\]/),
      },
      { path: 'nodes[4]', nodeId: n.wait, message: 'a CONDITION needs an edge labelled "false" leaving it' },
      { path: 'edges[7]', message: 'an edge labelled "yes" may not leave a CONDITION' },
    ]);
    expect((await callAs(t, acme, 'GET', `/api/journeys/${journey.id}`)).json().data.status).toBe('DRAFT');
    const empty = await create(acme);
    const none = expectError(
      await callAs(t, acme, 'POST', `/api/journeys/${empty.id}/publish`),
      400,
      'VALIDATION_ERROR',
    );
    expect(none.details).toEqual([{ path: 'nodes', message: 'a journey needs exactly one TRIGGER node' }]);
  });

  it('CONTENT nodes must point at existing, non-archived content of their contentType', async () => {
    const flow = await createFlow(t, acme);
    const c = simpleCanvas(flow.id);
    const journey = await create(acme, { nodes: c.nodes, edges: c.edges });
    await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}`);
    const error = expectError(
      await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([
      { path: 'nodes[2]', nodeId: c.n.content, message: `flow ${flow.id} does not exist or is archived` },
    ]);
    // Another tenant's flow does not count either.
    const theirs = await createFlow(t, other);
    const mine = simpleCanvas(theirs.id);
    const j2 = await create(acme, { nodes: mine.nodes, edges: mine.edges });
    expectError(await callAs(t, acme, 'POST', `/api/journeys/${j2.id}/publish`), 400, 'VALIDATION_ERROR');
    // A tooltip id under contentType flow is not a flow.
    const tip = await callAs(t, acme, 'POST', '/api/content/tooltips', {
      name: 'Tip',
      siteId: SITE,
      targetSelector: '#a',
      content: { text: 'hi' },
    });
    const typed = simpleCanvas(tip.json().data.id);
    const j3 = await create(acme, { nodes: typed.nodes, edges: typed.edges });
    expectError(await callAs(t, acme, 'POST', `/api/journeys/${j3.id}/publish`), 400, 'VALIDATION_ERROR');
    typed.nodes[2] = { ...typed.nodes[2]!, config: { contentType: 'tooltip' } };
    await callAs(t, acme, 'PUT', `/api/journeys/${j3.id}/canvas`, { nodes: typed.nodes, edges: typed.edges });
    expect((await callAs(t, acme, 'POST', `/api/journeys/${j3.id}/publish`)).statusCode).toBe(200);
  });
});

describe('references', () => {
  it('an audience used by a non-archived journey cannot be deleted (AUDIENCE_IN_USE lists it)', async () => {
    const audienceId = await insertAudience(t, acme.tenantId);
    const journey = await create(acme, { name: 'Uses audience', audienceId });
    const error = expectError(
      await callAs(t, acme, 'DELETE', `/api/audiences/${audienceId}`),
      409,
      'AUDIENCE_IN_USE',
    );
    expect(JSON.stringify(error.details)).toContain(journey.id);
    await callAs(t, acme, 'DELETE', `/api/journeys/${journey.id}`);
    expect((await callAs(t, acme, 'DELETE', `/api/audiences/${audienceId}`)).statusCode).toBeLessThan(300);
  });

  it('an audience the live version targets stays in use after the working copy moves to another', async () => {
    const first = await insertAudience(t, acme.tenantId);
    const second = await insertAudience(t, acme.tenantId);
    const flow = await createFlow(t, acme);
    const c = simpleCanvas(flow.id);
    const journey = await create(acme, { name: 'Live targets first', audienceId: first, ...c });
    expect((await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`)).statusCode).toBe(200);
    const patch = await callAs(t, acme, 'PATCH', `/api/journeys/${journey.id}`, { audienceId: second });
    expect(patch.statusCode, patch.body).toBe(200);
    // Version 1, live, still enrolls by the first audience.
    const error = expectError(
      await callAs(t, acme, 'DELETE', `/api/audiences/${first}`),
      409,
      'AUDIENCE_IN_USE',
    );
    expect(JSON.stringify(error.details)).toContain(journey.id);
    // Once archived, neither counts.
    const archived = await callAs(t, acme, 'DELETE', `/api/journeys/${journey.id}`);
    expect(archived.statusCode, archived.body).toBe(200);
    const gone = await callAs(t, acme, 'DELETE', `/api/audiences/${first}`);
    expect(gone.statusCode, gone.body).toBeLessThan(300);
  });

  it('deleting a flow with disableDependents pauses the published journeys showing it', async () => {
    const flow = await createFlow(t, acme);
    const c = simpleCanvas(flow.id);
    const journey = await create(acme, { name: 'Shows the flow', nodes: c.nodes, edges: c.edges });
    await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`);
    const res = await callAs(t, acme, 'DELETE', `/api/flows/${flow.id}?disableDependents=true`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().disabledDependents).toContainEqual({
      type: 'journey',
      id: journey.id,
      name: 'Shows the flow',
    });
    expect((await callAs(t, acme, 'GET', `/api/journeys/${journey.id}`)).json().data.status).toBe('PAUSED');
    const [entry] = await auditEntries(t, acme.tenantId, { action: 'JOURNEY_PAUSED', entityId: journey.id });
    expect(entry?.metadata).toMatchObject({ reason: 'flow deleted', flowId: flow.id });
  });

  it('the flow a journey shows is its live version’s, not an unpublished working copy’s', async () => {
    const live = await createFlow(t, acme);
    const edited = await createFlow(t, acme);
    const c = simpleCanvas(live.id);
    const journey = await create(acme, { name: 'Live shows one', nodes: c.nodes, edges: c.edges });
    expect((await callAs(t, acme, 'POST', `/api/journeys/${journey.id}/publish`)).statusCode).toBe(200);
    // The working copy now shows the other flow; version 1, live, still shows the first.
    const w = simpleCanvas(edited.id, c.n);
    const put = await callAs(t, acme, 'PUT', `/api/journeys/${journey.id}/canvas`, {
      nodes: w.nodes,
      edges: w.edges,
    });
    expect(put.statusCode, put.body).toBe(200);

    // The flow only the working copy shows: the running journey goes on.
    const first = await callAs(t, acme, 'DELETE', `/api/flows/${edited.id}?disableDependents=true`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().disabledDependents ?? []).not.toContainEqual(
      expect.objectContaining({ id: journey.id }),
    );
    expect((await callAs(t, acme, 'GET', `/api/journeys/${journey.id}`)).json().data.status).toBe(
      'PUBLISHED',
    );

    // The flow the live version shows: paused.
    const second = await callAs(t, acme, 'DELETE', `/api/flows/${live.id}?disableDependents=true`);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().disabledDependents).toContainEqual({
      type: 'journey',
      id: journey.id,
      name: 'Live shows one',
    });
    expect((await callAs(t, acme, 'GET', `/api/journeys/${journey.id}`)).json().data.status).toBe('PAUSED');
  });
});
