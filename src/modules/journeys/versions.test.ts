import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard, publishedFlow, SITE, sdkCall } from '../../../test/helpers/sdk.js';
import { rawQuery } from '../../db/raw.js';
import { JOURNEY_TIMERS } from './runtime/timers.js';

/**
 * Journey versions through HTTP (docs/versions.md, docs/journeys.md): new enrollments run the
 * live version only, a canvas or field edit of a published journey is a working copy until it is
 * published again, enrollments keep the version they entered, roll back, restore, diff, 404s,
 * roles, tenant isolation and the audit entries. Embedded database and PostgreSQL (DATABASE_URL).
 */

let t: TestApp;
const T0 = Date.UTC(2030, 0, 1, 12);
const MIN = 60_000;
const at = { x: 0, y: 0 };

beforeAll(async () => {
  t = await createTestApp();
  t.clock.set(T0);
});
afterAll(() => t.close());

interface Env {
  tenant: TenantFixture;
  sdk: ReturnType<typeof sdkCall>;
  flow1: string;
  flow2: string;
}

async function env(): Promise<Env> {
  const tenant = await createTenant(t);
  const sdk = sdkCall(t, await apiKeyOf(t, tenant));
  return {
    tenant,
    sdk,
    flow1: await publishedFlow(t, tenant, { name: 'First' }),
    flow2: await publishedFlow(t, tenant, { name: 'Second' }),
  };
}

const call = (e: Env, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
  callAs(t, e.tenant, method, url, body);

async function signup(e: Env, userId: string) {
  const res = await e.sdk('POST', '/api/sdk/events', {
    events: [{ type: 'CUSTOM', name: 'signup', userId }],
  });
  expect(res.statusCode, res.body).toBe(202);
  await t.processEvents();
}

async function dueContent(e: Env, userId: string) {
  const res = await e.sdk('POST', '/api/sdk/session', { userId });
  expect(res.statusCode, res.body).toBe(201);
  await t.processEvents();
  const data = res.json().data as {
    flows: { id: string }[];
    journeys: { enrollmentId: string; nodeId: string; contentId: string }[];
  };
  // The item of each due node is served in the same answer.
  for (const j of data.journeys) expect(data.flows.map((f) => f.id)).toContain(j.contentId);
  return data.journeys;
}

/** The version each of the journey's enrollments runs, by external user id. */
async function pinned(journeyId: string) {
  const rows = await rawQuery<{ user_id: string; journey_version: number }>(
    t.deps.database.db,
    `select u.external_id as user_id, e.journey_version from journey_enrollments e
     join end_users u on u.id = e.end_user_id where e.journey_id = $1`,
    [journeyId],
  );
  return Object.fromEntries(rows.map((r) => [r.user_id, r.journey_version]));
}

/** TRIGGER(CUSTOM_EVENT signup) → CONTENT(flow) → EXIT, with fixed node ids. */
function canvas(flowId: string, ids = { trigger: randomUUID(), content: randomUUID(), exit: randomUUID() }) {
  const nodes = [
    {
      id: ids.trigger,
      type: 'TRIGGER',
      config: { triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'signup' } },
      position: at,
    },
    { id: ids.content, type: 'CONTENT', config: { contentType: 'flow' }, contentId: flowId, position: at },
    { id: ids.exit, type: 'EXIT', config: {}, position: at },
  ];
  const edges = [
    { sourceNodeId: ids.trigger, targetNodeId: ids.content },
    { sourceNodeId: ids.content, targetNodeId: ids.exit },
  ];
  return { ids, nodes, edges };
}

async function publishedJourney(e: Env) {
  const c = canvas(e.flow1);
  const journey = await dashboard(t, e.tenant, 'POST', '/api/journeys', {
    name: 'Onboarding',
    siteId: SITE,
    nodes: c.nodes,
    edges: c.edges,
  });
  expect(journey).toMatchObject({ version: null, hasUnpublishedChanges: false });
  const res = await call(e, 'POST', `/api/journeys/${journey.id}/publish`, { note: 'first' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().data).toMatchObject({ status: 'PUBLISHED', version: 1, hasUnpublishedChanges: false });
  return { id: journey.id as string, c };
}

describe('journey versions', () => {
  it('new enrollments run the live version only: an edit waits for the next publish; enrollments keep the version they entered', async () => {
    const e = await env();
    const { id, c } = await publishedJourney(e);
    await signup(e, 'a');
    expect((await dueContent(e, 'a')).map((d) => d.contentId)).toEqual([e.flow1]);

    // The working copy: the CONTENT node shows the second flow, the name changes.
    const v2 = canvas(e.flow2, c.ids);
    const edited = await call(e, 'PUT', `/api/journeys/${id}/canvas`, { nodes: v2.nodes, edges: v2.edges });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data).toMatchObject({ version: 1, hasUnpublishedChanges: true });
    await call(e, 'PATCH', `/api/journeys/${id}`, { name: 'Onboarding v2' });

    // Not live: a new enrollment still runs version 1.
    await signup(e, 'b');
    expect((await dueContent(e, 'b')).map((d) => d.contentId)).toEqual([e.flow1]);

    const published = await call(e, 'POST', `/api/journeys/${id}/publish`, { note: 'second flow' });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json().data).toMatchObject({
      name: 'Onboarding v2',
      version: 2,
      hasUnpublishedChanges: false,
    });
    // Republishing without changes: 409, as the state table says.
    expectError(await call(e, 'POST', `/api/journeys/${id}/publish`), 409, 'INVALID_STATE_TRANSITION');

    await signup(e, 'c');
    expect((await dueContent(e, 'c')).map((d) => d.contentId)).toEqual([e.flow2]);
    // a and b keep version 1: their due content is still the first flow, served.
    const [dueA] = await dueContent(e, 'a');
    expect(dueA!.contentId).toBe(e.flow1);
    expect((await dueContent(e, 'b')).map((d) => d.contentId)).toEqual([e.flow1]);
    expect(await pinned(id)).toEqual({ a: 1, b: 1, c: 2 });

    // a's report moves it on through version 1 (to its EXIT).
    const res = await e.sdk('POST', '/api/sdk/events', {
      events: [
        {
          type: 'CONTENT_RENDERED',
          userId: 'a',
          properties: { journeyId: id, enrollmentId: dueA!.enrollmentId, nodeId: dueA!.nodeId },
        },
      ],
    });
    expect(res.statusCode).toBe(202);
    await t.processEvents();
    const list = (await dashboard(t, e.tenant, 'GET', `/api/journeys/${id}/enrollments?limit=10`)) as {
      status: string;
      currentNodeId: string;
      endUser: { userId: string };
    }[];
    expect(list.find((x) => x.endUser.userId === 'a')).toMatchObject({
      status: 'completed',
      currentNodeId: c.ids.exit,
    });

    const audits = await auditEntries(t, e.tenant.tenantId, { entityId: id, action: 'JOURNEY_PUBLISHED' });
    expect(audits.map((x) => x.metadata.version)).toEqual([1, 2]);
    const versions = (await call(e, 'GET', `/api/journeys/${id}/versions`)).json().data;
    expect(
      versions.map((v: { version: number; live: boolean; note: string }) => [v.version, v.live, v.note]),
    ).toEqual([
      [2, true, 'second flow'],
      [1, false, 'first'],
    ]);
    const one = (await call(e, 'GET', `/api/journeys/${id}/versions/1`)).json().data;
    expect(one.snapshot).toMatchObject({ name: 'Onboarding', nodes: c.nodes, edges: c.edges });

    const diff = (await call(e, 'GET', `/api/journeys/${id}/versions/1/diff/2`)).json().data;
    expect(diff.fields).toEqual([{ path: 'name', from: 'Onboarding', to: 'Onboarding v2' }]);
    expect(diff.collections.nodes).toMatchObject({
      added: [],
      removed: [],
      changed: [{ id: c.ids.content, fields: [{ path: 'contentId', from: e.flow1, to: e.flow2 }] }],
    });
    expect(diff.collections.edges).toMatchObject({ added: [], removed: [], changed: [] });
  });

  it('a timer of an enrollment fires through the version it entered, whatever was published since', async () => {
    const e = await env();
    const ids = { trigger: randomUUID(), wait: randomUUID(), content: randomUUID(), exit: randomUUID() };
    const nodes = [
      {
        id: ids.trigger,
        type: 'TRIGGER',
        config: { triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'signup' } },
        position: at,
      },
      { id: ids.wait, type: 'WAIT', config: { duration: MIN }, position: at },
      { id: ids.content, type: 'CONTENT', config: { contentType: 'flow' }, contentId: e.flow1, position: at },
      { id: ids.exit, type: 'EXIT', config: {}, position: at },
    ];
    const edges = [
      { sourceNodeId: ids.trigger, targetNodeId: ids.wait },
      { sourceNodeId: ids.wait, targetNodeId: ids.content },
      { sourceNodeId: ids.content, targetNodeId: ids.exit },
    ];
    const j = await dashboard(t, e.tenant, 'POST', '/api/journeys', {
      name: 'W',
      siteId: SITE,
      nodes,
      edges,
    });
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${j.id}/publish`);
    await signup(e, 'w');
    // Version 2 skips the WAIT and shows the second flow: w, waiting in version 1, is not moved.
    const v2 = canvas(e.flow2, { trigger: ids.trigger, content: ids.content, exit: ids.exit });
    await dashboard(t, e.tenant, 'PUT', `/api/journeys/${j.id}/canvas`, { nodes: v2.nodes, edges: v2.edges });
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${j.id}/publish`);
    t.clock.advance(MIN);
    await t.runJob(JOURNEY_TIMERS);
    expect((await dueContent(e, 'w')).map((d) => [d.nodeId, d.contentId])).toEqual([[ids.content, e.flow1]]);
  });

  it('rolls back in one call (m+1 equal to n, live at once); restore changes the working copy only', async () => {
    const e = await env();
    const { id, c } = await publishedJourney(e);
    const v2 = canvas(e.flow2, c.ids);
    await dashboard(t, e.tenant, 'PUT', `/api/journeys/${id}/canvas`, { nodes: v2.nodes, edges: v2.edges });
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${id}/publish`);
    await signup(e, 'before');
    expect((await dueContent(e, 'before')).map((d) => d.contentId)).toEqual([e.flow2]);

    const rolled = await call(e, 'POST', `/api/journeys/${id}/versions/1/publish`);
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(rolled.json().data).toMatchObject({
      status: 'PUBLISHED',
      version: 3,
      hasUnpublishedChanges: false,
    });
    expect(rolled.json().data.nodes[1]).toMatchObject({ id: c.ids.content, contentId: e.flow1 });
    await signup(e, 'after');
    expect((await dueContent(e, 'after')).map((d) => d.contentId)).toEqual([e.flow1]);
    expect((await dueContent(e, 'before')).map((d) => d.contentId)).toEqual([e.flow2]);
    expect(await pinned(id)).toEqual({ before: 2, after: 3 });
    const [rollback] = await auditEntries(t, e.tenant.tenantId, {
      entityId: id,
      action: 'JOURNEY_ROLLED_BACK',
    });
    expect(rollback!.metadata).toEqual({ version: 1, newVersion: 3, previousVersion: 2 });
    const three = (await call(e, 'GET', `/api/journeys/${id}/versions/3`)).json().data;
    expect(three.note).toBe('Rollback to version 1');
    expect(three.snapshot).toEqual(
      (await call(e, 'GET', `/api/journeys/${id}/versions/1`)).json().data.snapshot,
    );
    // Rolling back to what is live already: nothing to do.
    expectError(
      await call(e, 'POST', `/api/journeys/${id}/versions/3/publish`),
      409,
      'INVALID_STATE_TRANSITION',
    );

    const restored = await call(e, 'POST', `/api/journeys/${id}/versions/2/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data).toMatchObject({ version: 3, hasUnpublishedChanges: true });
    expect(restored.json().data.nodes[1]).toMatchObject({ contentId: e.flow2 });
    const [restoreAudit] = await auditEntries(t, e.tenant.tenantId, {
      entityId: id,
      action: 'JOURNEY_VERSION_RESTORED',
    });
    expect(restoreAudit!.metadata).toEqual({ version: 2 });
    await signup(e, 'later');
    expect((await dueContent(e, 'later')).map((d) => d.contentId)).toEqual([e.flow1]);
  });

  it('publish validates the working copy; a field edit (anonymous visitors) waits for the publish too', async () => {
    const e = await env();
    const { id, c } = await publishedJourney(e);
    await dashboard(t, e.tenant, 'PATCH', `/api/journeys/${id}`, { allowAnonymous: true });
    const anon = async (anonymousId: string) => {
      const res = await e.sdk('POST', '/api/sdk/events', {
        events: [{ type: 'CUSTOM', name: 'signup', anonymousId }],
      });
      expect(res.statusCode).toBe(202);
      await t.processEvents();
    };
    await anon('visitor-1');
    expect(await pinned(id)).toEqual({});
    // A broken working copy is refused at publish, and the live version stays.
    await dashboard(t, e.tenant, 'PUT', `/api/journeys/${id}/canvas`, { nodes: c.nodes, edges: [] });
    expectError(await call(e, 'POST', `/api/journeys/${id}/publish`), 400, 'VALIDATION_ERROR');
    expect((await call(e, 'GET', `/api/journeys/${id}/versions`)).json().data).toHaveLength(1);
    await dashboard(t, e.tenant, 'PUT', `/api/journeys/${id}/canvas`, { nodes: c.nodes, edges: c.edges });
    expect((await call(e, 'POST', `/api/journeys/${id}/publish`)).json().data).toMatchObject({ version: 2 });
    await anon('visitor-2');
    expect(Object.values(await pinned(id))).toEqual([2]);
  });

  it('answers 404 CONTENT_NOT_FOUND for unknown versions and 400 for malformed numbers; archived refuses a restore', async () => {
    const e = await env();
    const { id } = await publishedJourney(e);
    expectError(await call(e, 'GET', `/api/journeys/${id}/versions/9`), 404, 'CONTENT_NOT_FOUND');
    expectError(await call(e, 'GET', `/api/journeys/${id}/versions/1/diff/9`), 404, 'CONTENT_NOT_FOUND');
    expectError(await call(e, 'POST', `/api/journeys/${id}/versions/9/restore`), 404, 'CONTENT_NOT_FOUND');
    expectError(await call(e, 'POST', `/api/journeys/${id}/versions/9/publish`), 404, 'CONTENT_NOT_FOUND');
    expectError(await call(e, 'GET', `/api/journeys/${id}/versions/0`), 400, 'VALIDATION_ERROR');
    expectError(await call(e, 'GET', `/api/journeys/${randomUUID()}/versions`), 404, 'CONTENT_NOT_FOUND');
    await dashboard(t, e.tenant, 'DELETE', `/api/journeys/${id}`);
    expectError(
      await call(e, 'POST', `/api/journeys/${id}/versions/1/restore`),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expectError(
      await call(e, 'POST', `/api/journeys/${id}/versions/1/publish`),
      409,
      'INVALID_STATE_TRANSITION',
    );
  });

  it("never shows or changes another tenant's journey versions; a VIEWER reads but cannot restore or roll back", async () => {
    const e = await env();
    const { id } = await publishedJourney(e);
    const other = await createTenant(t);
    for (const [method, url] of [
      ['GET', `/api/journeys/${id}/versions`],
      ['GET', `/api/journeys/${id}/versions/1`],
      ['GET', `/api/journeys/${id}/versions/1/diff/1`],
      ['POST', `/api/journeys/${id}/versions/1/restore`],
      ['POST', `/api/journeys/${id}/versions/1/publish`],
    ] as const) {
      expectError(await callAs(t, other, method, url), 404, 'CONTENT_NOT_FOUND');
    }
    const viewer = await e.tenant.as('VIEWER');
    expect((await callAs(t, viewer, 'GET', `/api/journeys/${id}/versions`)).statusCode).toBe(200);
    expectError(
      await callAs(t, viewer, 'POST', `/api/journeys/${id}/versions/1/restore`),
      403,
      'INSUFFICIENT_ROLE',
    );
    expectError(
      await callAs(t, viewer, 'POST', `/api/journeys/${id}/versions/1/publish`),
      403,
      'INSUFFICIENT_ROLE',
    );
    expect(await auditEntries(t, e.tenant.tenantId, { entityId: id, action: 'JOURNEY_ROLLED_BACK' })).toEqual(
      [],
    );
  });
});
