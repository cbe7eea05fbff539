import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { journeyStats } from '../../../test/helpers/journey-stats.js';
import { apiKeyOf, audience, dashboard, publishedFlow, SITE, sdkCall } from '../../../test/helpers/sdk.js';
import { rawQuery } from '../../db/raw.js';
import { chooseBranch, splitBucket } from './engine/machine.js';
import { journeyDelivery } from './runtime/delivery-contributor.js';
import { JOURNEY_ARCHIVE_SWEEP } from './runtime/sweep.js';
import { JOURNEY_TIMERS } from './runtime/timers.js';

/**
 * The journey engine end to end through HTTP: events in (`POST /api/sdk/events` and the event
 * processor), sessions out (`POST /api/sdk/session`), timers by the job with a moved clock.
 */

let t: TestApp;
const at = { x: 0, y: 0 };
const T0 = Date.UTC(2030, 0, 1, 12);
const MIN = 60_000;

beforeAll(async () => {
  t = await createTestApp();
  t.clock.set(T0);
});
afterAll(() => t.close());

interface Env {
  tenant: TenantFixture;
  sdk: ReturnType<typeof sdkCall>;
  flowId: string;
}

async function env(): Promise<Env> {
  const tenant = await createTenant(t);
  const sdk = sdkCall(t, await apiKeyOf(t, tenant));
  const flowId = await publishedFlow(t, tenant);
  return { tenant, sdk, flowId };
}

async function send(e: Env, events: Record<string, unknown>[]) {
  const res = await e.sdk('POST', '/api/sdk/events', { events });
  expect(res.statusCode, res.body).toBe(202);
  await t.processEvents();
}
const custom = (userId: string, name: string, extra: Record<string, unknown> = {}) => ({
  type: 'CUSTOM',
  name,
  userId,
  ...extra,
});

async function session(e: Env, body: Record<string, unknown>) {
  const res = await e.sdk('POST', '/api/sdk/session', body);
  expect(res.statusCode, res.body).toBe(201);
  await t.processEvents();
  return res.json().data as {
    endUserId: string;
    flows: { id: string }[];
    content: { id: string }[];
    journeys: { journeyId: string; enrollmentId: string; nodeId: string; visit: number; contentId: string }[];
  };
}

async function advance(ms: number) {
  t.clock.advance(ms);
  await t.runJob(JOURNEY_TIMERS);
}

type Node = {
  id: string;
  type: string;
  config: Record<string, unknown>;
  contentId?: string;
  position: typeof at;
};
const node = (type: string, config: Record<string, unknown> = {}, contentId?: string): Node => ({
  id: randomUUID(),
  type,
  config,
  ...(contentId ? { contentId } : {}),
  position: at,
});
const trigger = (triggerType: string, triggerConfig: Record<string, unknown> = {}) =>
  node('TRIGGER', { triggerType, triggerConfig });
const edge = (a: Node, b: Node, label?: string) => ({
  sourceNodeId: a.id,
  targetNodeId: b.id,
  ...(label ? { label } : {}),
});

async function journey(e: Env, nodes: Node[], edges: unknown[], body: Record<string, unknown> = {}) {
  const j = await dashboard(t, e.tenant, 'POST', '/api/journeys', {
    name: 'J',
    siteId: SITE,
    nodes,
    edges,
    ...body,
  });
  await dashboard(t, e.tenant, 'POST', `/api/journeys/${j.id}/publish`);
  return j.id as string;
}

async function enrollments(e: Env, journeyId: string) {
  return (await dashboard(t, e.tenant, 'GET', `/api/journeys/${journeyId}/enrollments?limit=100`)) as {
    id: string;
    status: string;
    currentNodeId: string | null;
    endUser: { userId: string | null; traits: Record<string, unknown> };
  }[];
}

async function visits(enrollmentId: string) {
  return rawQuery<{ node_id: string; visit: number; exited_at: Date | null; edge_label: string | null }>(
    t.deps.database.db,
    'select node_id, visit, exited_at, edge_label from journey_node_visits where enrollment_id = $1 order by entered_at, node_id',
    [enrollmentId],
  );
}

async function timers(journeyId: string) {
  return rawQuery<{ kind: string; node_id: string | null; due_at: Date }>(
    t.deps.database.db,
    'select kind, node_id, due_at from journey_timers where journey_id = $1 order by kind',
    [journeyId],
  );
}

/** TRIGGER(CUSTOM_EVENT signup) → WAIT 1 min → CONTENT(flow) → EXIT. */
function nurture(flowId: string) {
  const n = {
    trigger: trigger('CUSTOM_EVENT', { eventName: 'signup' }),
    wait: node('WAIT', { duration: MIN }),
    content: node('CONTENT', { contentType: 'flow' }, flowId),
    exit: node('EXIT'),
  };
  return {
    n,
    nodes: Object.values(n),
    edges: [edge(n.trigger, n.wait), edge(n.wait, n.content), edge(n.content, n.exit)],
  };
}

describe('the engine through events, timers and sessions', () => {
  it('CUSTOM_EVENT enrolls; the WAIT timer fires once; the session lists the content (with visit) and serves the flow in the same round trip; CONTENT_RENDERED advances to EXIT', async () => {
    const e = await env();
    const draftFlow = (
      await dashboard(t, e.tenant, 'POST', '/api/flows', {
        name: 'Journey only',
        siteId: SITE,
        template: 'CUSTOM',
        steps: [{ type: 'MODAL', content: { title: 'Hi' } }],
      })
    ).id as string;
    const { n, nodes, edges } = nurture(draftFlow);
    const id = await journey(e, nodes, edges);

    await send(e, [custom('u-1', 'other'), custom('u-1', 'signup')]);
    let [enr] = await enrollments(e, id);
    expect(enr).toMatchObject({
      status: 'in_progress',
      currentNodeId: n.wait.id,
      endUser: { userId: 'u-1' },
    });
    expect(await timers(id)).toEqual([{ kind: 'node', node_id: n.wait.id, due_at: new Date(T0 + MIN) }]);
    // Not yet due: nothing listed, nothing fires.
    expect((await session(e, { userId: 'u-1' })).journeys).toEqual([]);
    await advance(MIN - 1000);
    expect((await enrollments(e, id))[0]!.currentNodeId).toBe(n.wait.id);

    await advance(1000);
    enr = (await enrollments(e, id))[0]!;
    expect(enr.currentNodeId).toBe(n.content.id);
    expect(await timers(id)).toEqual([]);
    const s = await session(e, { userId: 'u-1' });
    expect(s.journeys).toEqual([
      {
        journeyId: id,
        enrollmentId: enr.id,
        nodeId: n.content.id,
        visit: 1,
        contentType: 'flow',
        contentId: draftFlow,
      },
    ]);
    // The draft flow is served only because the journey brings it in, and only to this user.
    expect(s.flows.map((f) => f.id)).toContain(draftFlow);
    expect((await session(e, { userId: 'u-2' })).flows.map((f) => f.id)).not.toContain(draftFlow);
    // A report for another node or enrollment changes nothing; the right one advances.
    await send(e, [
      custom('u-1', 'x', {
        type: 'CONTENT_RENDERED',
        properties: { enrollmentId: enr.id, nodeId: n.wait.id },
      }),
    ]);
    expect((await enrollments(e, id))[0]!.status).toBe('in_progress');
    await send(e, [
      {
        type: 'CONTENT_RENDERED',
        userId: 'u-1',
        properties: { journeyId: id, enrollmentId: enr.id, nodeId: n.content.id },
      },
    ]);
    enr = (await enrollments(e, id))[0]!;
    expect(enr).toMatchObject({ status: 'completed', currentNodeId: n.exit.id });
    expect((await session(e, { userId: 'u-1' })).journeys).toEqual([]);
    const history = await visits(enr.id);
    const byNode = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(history.map((v) => [v.node_id, v.visit, v.exited_at !== null]).sort(byNode)).toEqual(
      [
        [n.trigger.id, 1, true],
        [n.wait.id, 1, true],
        [n.content.id, 1, true],
        [n.exit.id, 1, true],
      ].sort(byNode),
    );
    // Firing the job again (a retry) does nothing more.
    await advance(MIN);
    expect(await visits(enr.id)).toHaveLength(4);
  });

  it('audience, anonymity and re-entry: never, after_exit, cooldown', async () => {
    const e = await env();
    const pros = await audience(t, e.tenant, { field: 'traits.plan', operator: 'eq', value: 'pro' });
    const mk = async (body: Record<string, unknown>) => {
      const tr = trigger('CUSTOM_EVENT', { eventName: 'go' });
      const ex = node('EXIT');
      const w = node('WAIT', { duration: MIN });
      return { id: await journey(e, [tr, w, ex], [edge(tr, w), edge(w, ex)], body), w };
    };
    const never = await mk({ audienceId: pros });
    const afterExit = await mk({ settings: { reentry: 'after_exit' } });
    const cooldown = await mk({ settings: { reentry: { cooldownMs: 10 * MIN } }, allowAnonymous: true });

    await e.sdk('POST', '/api/sdk/identify', { userId: 'pro', traits: { plan: 'pro' } });
    await e.sdk('POST', '/api/sdk/identify', { userId: 'basic', traits: { plan: 'basic' } });
    await send(e, [
      custom('pro', 'go'),
      custom('basic', 'go'),
      { type: 'CUSTOM', name: 'go', anonymousId: 'anon-1' },
    ]);
    expect((await enrollments(e, never.id)).map((x) => x.endUser.userId)).toEqual(['pro']);
    expect((await enrollments(e, afterExit.id)).map((x) => x.endUser.userId).sort()).toEqual([
      'basic',
      'pro',
    ]);
    expect((await enrollments(e, cooldown.id)).map((x) => x.endUser.userId).sort()).toEqual(
      [null, 'basic', 'pro'].sort(),
    );

    // Again while in progress: nobody is enrolled twice at once.
    await send(e, [custom('pro', 'go')]);
    expect(await enrollments(e, afterExit.id)).toHaveLength(2);
    await advance(MIN); // every enrollment completes
    await send(e, [custom('pro', 'go')]);
    expect(await enrollments(e, never.id)).toHaveLength(1);
    expect(await enrollments(e, afterExit.id)).toHaveLength(3);
    expect(await enrollments(e, cooldown.id)).toHaveLength(3); // 1 minute < 10 minutes
    t.clock.advance(10 * MIN);
    await send(e, [custom('pro', 'go')]);
    expect(await enrollments(e, cooldown.id)).toHaveLength(4);
  });

  it('WAIT_FOR_EVENT takes the event edge, or the timeout edge when its timer fires first', async () => {
    const e = await env();
    const tr = trigger('CUSTOM_EVENT', { eventName: 'start' });
    const wfe = node('WAIT_FOR_EVENT', { eventName: 'done', timeout: 5 * MIN });
    const gotIt = node('EXIT');
    const late = node('EXIT');
    const id = await journey(
      e,
      [tr, wfe, gotIt, late],
      [edge(tr, wfe), edge(wfe, gotIt, 'event'), edge(wfe, late, 'timeout')],
    );
    await send(e, [custom('a', 'start'), custom('b', 'start')]);
    await send(e, [custom('a', 'done')]);
    await advance(5 * MIN);
    const byUser = Object.fromEntries((await enrollments(e, id)).map((x) => [x.endUser.userId, x]));
    expect(byUser.a).toMatchObject({ status: 'completed', currentNodeId: gotIt.id });
    expect(byUser.b).toMatchObject({ status: 'completed', currentNodeId: late.id });
    expect((await visits(byUser.b!.id)).find((v) => v.node_id === wfe.id)?.edge_label).toBe('timeout');
    expect(await timers(id)).toEqual([]);
  });

  it('CONDITION branches on current traits; SPLIT takes the branch of the enrollment hash', async () => {
    const e = await env();
    const tr = trigger('ELEMENT_CLICK', { selector: '#buy' });
    const cond = node('CONDITION', { ruleTree: { field: 'traits.vip', operator: 'eq', value: true } });
    const split = node('SPLIT', {
      branches: [
        { label: 'A', percentage: 30 },
        { label: 'B', percentage: 70 },
      ],
    });
    const vip = node('EXIT');
    const a = node('EXIT');
    const b = node('EXIT');
    const id = await journey(
      e,
      [tr, cond, split, vip, a, b],
      [
        edge(tr, cond),
        edge(cond, vip, 'true'),
        edge(cond, split, 'false'),
        edge(split, a, 'A'),
        edge(split, b, 'B'),
      ],
    );
    await e.sdk('POST', '/api/sdk/identify', { userId: 'vip', traits: { vip: true } });
    const users = ['vip', ...Array.from({ length: 12 }, (_, i) => `u${i}`)];
    await send(
      e,
      users.map((u) => ({ type: 'CLICK', userId: u, properties: { selector: '#buy' } })),
    );
    await send(e, [{ type: 'CLICK', userId: 'nobody', properties: { selector: '#other' } }]);
    const list = await enrollments(e, id);
    expect(list).toHaveLength(13);
    for (const x of list) {
      if (x.endUser.userId === 'vip') {
        expect(x.currentNodeId).toBe(vip.id);
        continue;
      }
      const label = chooseBranch(
        [
          { label: 'A', percentage: 30 },
          { label: 'B', percentage: 70 },
        ],
        splitBucket(x.id, split.id, 1),
      );
      expect(x.currentNodeId).toBe(label === 'A' ? a.id : b.id);
    }
  });

  it('a CONDITION after a WAIT branches on the traits the end user has when the timer fires', async () => {
    const e = await env();
    const tr = trigger('CUSTOM_EVENT', { eventName: 'signup' });
    const wait = node('WAIT', { duration: MIN });
    const cond = node('CONDITION', { ruleTree: { field: 'traits.vip', operator: 'eq', value: true } });
    const yes = node('EXIT');
    const no = node('EXIT');
    const id = await journey(
      e,
      [tr, wait, cond, yes, no],
      [edge(tr, wait), edge(wait, cond), edge(cond, yes, 'true'), edge(cond, no, 'false')],
    );
    await send(e, [custom('late-vip', 'signup'), custom('plain', 'signup')]);
    // Traits change while the enrollments wait: the timer step reads them as they are then.
    await e.sdk('POST', '/api/sdk/identify', { userId: 'late-vip', traits: { vip: true } });
    await advance(MIN);
    const at = Object.fromEntries((await enrollments(e, id)).map((x) => [x.endUser.userId, x.currentNodeId]));
    expect(at).toEqual({ 'late-vip': yes.id, plain: no.id });
  });

  it('a timer row that disagrees with its enrollment fires nothing and is rewritten from the state', async () => {
    const e = await env();
    const { n, nodes, edges } = nurture(e.flowId);
    const id = await journey(e, nodes, edges);
    await send(e, [custom('stale', 'signup')]);
    const [before] = await timers(id);
    // A row of another visit, due now (never written by the engine: a damaged row).
    await rawQuery(
      t.deps.database.db,
      `update journey_timers set visit = 7, due_at = $2 where journey_id = $1`,
      [id, new Date(t.clock.now()).toISOString()],
    );
    await advance(1);
    const [list] = [await enrollments(e, id)];
    expect(list.map((x) => x.currentNodeId)).toEqual([n.wait.id]);
    expect(await timers(id)).toEqual([before]);
    expect(
      await rawQuery(t.deps.database.db, 'select visit from journey_timers where journey_id = $1', [id]),
    ).toEqual([{ visit: 1 }]);
    // The rewritten timer fires when due.
    await advance(MIN);
    expect((await enrollments(e, id)).map((x) => x.currentNodeId)).toEqual([n.content.id]);
  });

  it('goals: an event goal ends the enrollment goal_reached at any time; the deadline abandons it', async () => {
    const e = await env();
    const { nodes, edges } = nurture(e.flowId);
    const id = await journey(e, nodes, edges, {
      goalConfig: { type: 'event', config: { eventName: 'project_created' }, deadline: 1 },
    });
    await send(e, [custom('fast', 'signup'), custom('slow', 'signup')]);
    t.clock.advance(10 * MIN);
    await send(e, [custom('fast', 'project_created')]);
    await advance(86_400_000);
    const byUser = Object.fromEntries((await enrollments(e, id)).map((x) => [x.endUser.userId, x]));
    expect(byUser.fast).toMatchObject({ status: 'goal_reached' });
    expect(byUser.slow).toMatchObject({ status: 'abandoned' });
    expect(await timers(id)).toEqual([]);
    const stats = await dashboard(t, e.tenant, 'GET', `/api/journeys/${id}/analytics`);
    expect(stats).toMatchObject({
      enrollments: 2,
      statuses: { goal_reached: 1, abandoned: 1, in_progress: 0 },
      conversion: 50,
      medianTimeToGoalMs: 10 * MIN,
    });
  });

  it('goals: attribute_match (identify), flow_completed, page_visit; GOAL_CHECK takes met / not_met', async () => {
    const e = await env();
    const attr = async () => {
      const tr = trigger('MANUAL');
      const w = node('WAIT', { duration: MIN });
      const check = node('GOAL_CHECK');
      const met = node('EXIT');
      const notMet = node('EXIT');
      const id = await journey(
        e,
        [tr, w, check, met, notMet],
        [edge(tr, w), edge(w, check), edge(check, met, 'met'), edge(check, notMet, 'not_met')],
        {
          goalConfig: {
            type: 'attribute_match',
            config: { field: 'traits.active', operator: 'eq', value: true },
          },
        },
      );
      return { id, met, notMet };
    };
    const j = await attr();
    await e.sdk('POST', '/api/sdk/identify', { userId: 'g1', traits: {} });
    await e.sdk('POST', '/api/sdk/identify', { userId: 'g2', traits: {} });
    for (const u of ['g1', 'g2']) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/journeys/${j.id}/enrollments`,
        headers: e.tenant.owner.headers,
        payload: { userId: u },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    // g1 becomes active: the identify (an event) meets the goal at once.
    await e.sdk('POST', '/api/sdk/identify', { userId: 'g1', traits: { active: true } });
    await t.processEvents();
    await advance(MIN);
    const byUser = Object.fromEntries((await enrollments(e, j.id)).map((x) => [x.endUser.userId, x]));
    expect(byUser.g1).toMatchObject({ status: 'goal_reached' });
    expect(byUser.g2).toMatchObject({ status: 'completed', currentNodeId: j.notMet.id });

    const tr = trigger('CUSTOM_EVENT', { eventName: 'in' });
    const wait = node('WAIT', { duration: MIN });
    const ex = node('EXIT');
    const flowGoal = await journey(e, [tr, wait, ex], [edge(tr, wait), edge(wait, ex)], {
      goalConfig: { type: 'flow_completed', config: { flowId: e.flowId } },
    });
    const tr2 = trigger('CUSTOM_EVENT', { eventName: 'in' });
    const wait2 = node('WAIT', { duration: MIN });
    const ex2 = node('EXIT');
    const pageGoal = await journey(e, [tr2, wait2, ex2], [edge(tr2, wait2), edge(wait2, ex2)], {
      goalConfig: { type: 'page_visit', config: { matchType: 'contains', pattern: '/billing' } },
    });
    await send(e, [custom('h', 'in')]);
    await send(e, [
      { type: 'FLOW_COMPLETED', userId: 'h', properties: { flowId: randomUUID() } },
      { type: 'PAGE_VIEW', userId: 'h', url: 'https://app.example.com/settings' },
    ]);
    expect((await enrollments(e, flowGoal))[0]!.status).toBe('in_progress');
    expect((await enrollments(e, pageGoal))[0]!.status).toBe('in_progress');
    await send(e, [
      { type: 'FLOW_COMPLETED', userId: 'h', properties: { flowId: e.flowId } },
      { type: 'PAGE_VIEW', userId: 'h', url: 'https://app.example.com/billing/plans' },
    ]);
    expect((await enrollments(e, flowGoal))[0]!.status).toBe('goal_reached');
    expect((await enrollments(e, pageGoal))[0]!.status).toBe('goal_reached');
  });

  it('URL_MATCH enrolls on a PAGE_VIEW and on a session start with a matching url', async () => {
    const e = await env();
    const tr = trigger('URL_MATCH', { matchType: 'starts_with', pattern: 'https://app.example.com/pricing' });
    const w = node('WAIT', { duration: MIN });
    const ex = node('EXIT');
    const id = await journey(e, [tr, w, ex], [edge(tr, w), edge(w, ex)]);
    await send(e, [{ type: 'PAGE_VIEW', userId: 'p1', url: 'https://app.example.com/pricing?x=1' }]);
    await send(e, [{ type: 'PAGE_VIEW', userId: 'p2', url: 'https://app.example.com/home' }]);
    await session(e, { userId: 'p3', url: 'https://app.example.com/pricing' });
    expect((await enrollments(e, id)).map((x) => x.endUser.userId).sort()).toEqual(['p1', 'p3']);
  });

  it('pause holds new enrollments and unpublish stops them; existing enrollments go on; archive stops them', async () => {
    const e = await env();
    const { nodes, edges, n } = nurture(e.flowId);
    const id = await journey(e, nodes, edges);
    await send(e, [custom('a', 'signup')]);
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${id}/pause`);
    await send(e, [custom('b', 'signup')]);
    await advance(MIN);
    expect((await enrollments(e, id)).map((x) => [x.endUser.userId, x.currentNodeId])).toEqual([
      ['a', n.content.id],
    ]);
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${id}/publish`);
    await send(e, [custom('c', 'signup')]);
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${id}/unpublish`);
    await send(e, [custom('d', 'signup')]);
    await advance(MIN);
    const list = await enrollments(e, id);
    expect(list.map((x) => x.endUser.userId).sort()).toEqual(['a', 'c']);
    // Issue 39: the enrollments run the version they entered; the draft's canvas is a working
    // copy, edited freely (even into one that could not be published) without touching them.
    const broken = await t.inject({
      method: 'PUT',
      url: `/api/journeys/${id}/canvas`,
      headers: e.tenant.owner.headers,
      payload: { nodes: [n.trigger], edges: [] },
    });
    expect(broken.statusCode).toBe(200);
    expect(list.every((x) => x.currentNodeId === n.content.id)).toBe(true);
    expect((await session(e, { userId: 'a' })).journeys).toHaveLength(1);
    await dashboard(t, e.tenant, 'DELETE', `/api/journeys/${id}`);
    const stopped = await enrollments(e, id);
    expect(stopped.map((x) => x.status)).toEqual(['stopped', 'stopped']);
    expect((await session(e, { userId: 'a' })).journeys).toEqual([]);
    for (const x of stopped) expect((await visits(x.id)).every((v) => v.exited_at !== null)).toBe(true);
  });

  it('an audience-only journey (MANUAL trigger with an audience) enrolls at the next session and serves its first content in that round trip, once', async () => {
    const e = await env();
    const trials = await audience(t, e.tenant, { field: 'traits.trial', operator: 'eq', value: true });
    const tr = trigger('MANUAL');
    const content = node('CONTENT', { contentType: 'flow' }, e.flowId);
    const ex = node('EXIT');
    const id = await journey(e, [tr, content, ex], [edge(tr, content), edge(content, ex)], {
      audienceId: trials,
    });
    await e.sdk('POST', '/api/sdk/identify', { userId: 'trial', traits: { trial: true } });
    await e.sdk('POST', '/api/sdk/identify', { userId: 'paid', traits: { trial: false } });
    const first = await session(e, { userId: 'trial' });
    expect(first.journeys).toMatchObject([
      { journeyId: id, nodeId: content.id, contentId: e.flowId, visit: 1 },
    ]);
    expect((await session(e, { userId: 'paid' })).journeys).toEqual([]);
    const again = await session(e, { userId: 'trial' });
    expect(again.journeys).toEqual(first.journeys);
    const list = await enrollments(e, id);
    expect(list.map((x) => [x.id, x.endUser.userId])).toEqual([[first.journeys[0]!.enrollmentId, 'trial']]);
    await send(e, [
      {
        type: 'FLOW_COMPLETED',
        userId: 'trial',
        properties: { flowId: e.flowId, journeyId: id, enrollmentId: list[0]!.id, nodeId: content.id },
      },
    ]);
    expect((await enrollments(e, id))[0]!.status).toBe('completed');
    // re-entry never: no second enrollment at the next session
    expect((await session(e, { userId: 'trial' })).journeys).toEqual([]);
    expect(await enrollments(e, id)).toHaveLength(1);
  });

  it('20 concurrent first sessions of one new user enroll once, and every answer lists that one stored enrollment', async () => {
    const e = await env();
    const everyone = await audience(t, e.tenant, { field: 'userId', operator: 'exists' });
    const tr = trigger('MANUAL');
    const content = node('CONTENT', { contentType: 'flow' }, e.flowId);
    const ex = node('EXIT');
    const id = await journey(e, [tr, content, ex], [edge(tr, content), edge(content, ex)], {
      audienceId: everyone,
      settings: { reentry: 'never' },
    });
    // Two instances (each its own group writer) so that both ways of losing are met: to a
    // session of the same write, and to an enrollment the other instance committed first.
    const other = await createTestApp({ db: t.db });
    other.clock.set(t.clock.now());
    const sdks = [e.sdk, sdkCall(other, await apiKeyOf(other, e.tenant))];
    const responses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await sdks[i % 2]!('POST', '/api/sdk/session', { userId: 'racer' });
        expect(res.statusCode, res.body).toBe(201);
        return res.json().data as Awaited<ReturnType<typeof session>>;
      }),
    ).finally(() => other.close());
    const stored = await rawQuery<{ id: string }>(
      t.deps.database.db,
      'select id from journey_enrollments where journey_id = $1',
      [id],
    );
    expect(stored).toHaveLength(1);
    const winner = stored[0]!.id;
    for (const r of responses) {
      // Every answer shows the enrollment that was stored, and serves its content.
      expect(r.journeys).toEqual([
        {
          journeyId: id,
          enrollmentId: winner,
          nodeId: content.id,
          visit: 1,
          contentType: 'flow',
          contentId: e.flowId,
        },
      ]);
      expect(r.flows.map((f) => f.id)).toEqual([e.flowId]);
    }
  });

  it('a refused first enrollment is answered with the stored one in progress, or with nothing (the contributor alone)', async () => {
    const e = await env();
    const everyone = await audience(t, e.tenant, { field: 'userId', operator: 'exists' });
    const tr = trigger('MANUAL');
    const content = node('CONTENT', { contentType: 'flow' }, e.flowId);
    const ex = node('EXIT');
    const id = await journey(e, [tr, content, ex], [edge(tr, content), edge(content, ex)], {
      audienceId: everyone,
      settings: { reentry: 'never' },
    });
    const first = await session(e, { userId: 'late' });
    const stored = first.journeys[0]!.enrollmentId;
    const { data } = await journeyDelivery.load(t.deps.database.db, e.tenant.tenantId);
    // A session whose lookup did not see the stored enrollment yet decides to enroll again.
    const decide = () =>
      journeyDelivery.choose!(data!, null, {
        tenantId: e.tenant.tenantId,
        sessionId: randomUUID(),
        endUserId: first.endUserId,
        userId: 'late',
        anonymousId: null,
        url: undefined,
        locale: undefined,
        rules: { userId: 'late' },
        nowMs: t.clock.now(),
        inAudience: () => true,
      });
    const store = (choice: ReturnType<typeof decide>) =>
      journeyDelivery.remember!(t.deps.database.db, [
        { tenantId: e.tenant.tenantId, endUserId: first.endUserId, choice },
      ]);
    const racing = decide();
    expect(racing.journeys).toHaveLength(1);
    expect(racing.journeys![0]!.enrollmentId).not.toBe(stored);
    // In progress: the stored enrollment is served in place of the refused one.
    const [replaced] = await store(racing);
    expect(replaced!.journeys).toEqual(first.journeys);
    expect(replaced!.include).toEqual([e.flowId]);
    // Ended (re-entry never): nothing of the journey is served.
    await rawQuery(
      t.deps.database.db,
      `update journey_enrollments set status = 'completed', ended_at = now() where id = $1`,
      [stored],
    );
    const [dropped] = await store(decide());
    expect(dropped!.journeys).toEqual([]);
    expect(dropped!.include).toEqual([]);
    expect((await enrollments(e, id)).map((x) => x.id)).toEqual([stored]);
  });
});

describe('POST /api/journeys/:id/enrollments and GET enrollments', () => {
  it('enrolls by hand; 409 when in progress; 404 unknown end user; anonymous only when allowed; not published 409; roles; isolation', async () => {
    const e = await env();
    const { nodes, edges, n } = nurture(e.flowId);
    const id = await journey(e, nodes, edges);
    await e.sdk('POST', '/api/sdk/identify', { userId: 'm1', traits: { plan: 'x' } });
    const enroll = (body: unknown, who = e.tenant.owner.headers, journeyId = id) =>
      t.inject({
        method: 'POST',
        url: `/api/journeys/${journeyId}/enrollments`,
        headers: who,
        payload: body as object,
      });
    const res = await enroll({ userId: 'm1' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      journeyId: id,
      status: 'in_progress',
      currentNodeId: n.wait.id,
      endUser: { userId: 'm1', traits: { plan: 'x' } },
    });
    const again = expectError(await enroll({ userId: 'm1' }), 409, 'ALREADY_ENROLLED');
    expect(again.details).toEqual({ reason: 'in_progress' });
    expectError(await enroll({ userId: 'ghost' }), 404, 'NOT_FOUND');
    expectError(await enroll({}), 400, 'VALIDATION_ERROR');
    expectError(await enroll({ userId: 'a', anonymousId: 'b' }), 400, 'VALIDATION_ERROR');
    await session(e, { anonymousId: 'anon-9' });
    expectError(await enroll({ anonymousId: 'anon-9' }), 400, 'VALIDATION_ERROR');
    const viewer = await e.tenant.as('VIEWER');
    expectError(await enroll({ userId: 'm1' }, viewer.headers), 403, 'INSUFFICIENT_ROLE');
    const stranger = await createTenant(t);
    expectError(await enroll({ userId: 'm1' }, stranger.owner.headers), 404, 'CONTENT_NOT_FOUND');
    expectError(
      await t.inject({
        method: 'GET',
        url: `/api/journeys/${id}/enrollments`,
        headers: stranger.owner.headers,
      }),
      404,
      'CONTENT_NOT_FOUND',
    );
    expectError(
      await t.inject({
        method: 'GET',
        url: `/api/journeys/${id}/analytics`,
        headers: stranger.owner.headers,
      }),
      404,
      'CONTENT_NOT_FOUND',
    );
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${id}/pause`);
    expectError(await enroll({ userId: 'm1' }), 409, 'INVALID_STATE_TRANSITION');

    const list = await t.inject({
      method: 'GET',
      url: `/api/journeys/${id}/enrollments?limit=1&status=in_progress`,
      headers: viewer.headers,
    });
    expect(list.json().meta).toEqual({ page: 1, limit: 1, total: 1, totalPages: 1 });
    expect(list.json().data[0].endUser).toMatchObject({ userId: 'm1', traits: { plan: 'x' } });
  });

  it('tenant isolation: another tenant with the same userId and event name never enrolls in this journey', async () => {
    const e = await env();
    const f = await env();
    const { nodes, edges } = nurture(e.flowId);
    const id = await journey(e, nodes, edges);
    await send(f, [custom('same-user', 'signup')]);
    expect(await enrollments(e, id)).toEqual([]);
    await send(e, [custom('same-user', 'signup')]);
    const [mine] = await enrollments(e, id);
    // The other tenant's events (even naming the enrollment) do nothing to it.
    await send(f, [
      {
        type: 'CONTENT_RENDERED',
        userId: 'same-user',
        properties: { enrollmentId: mine!.id, nodeId: mine!.currentNodeId },
      },
    ]);
    expect((await enrollments(e, id))[0]!.currentNodeId).toBe(mine!.currentNodeId);
    expect((await session(f, { userId: 'same-user' })).journeys).toEqual([]);
  });
});

describe('identify merges an anonymous visitor into a known user', () => {
  it('moves their enrollments, except one in a journey where the user is already in progress', async () => {
    const e = await env();
    const mk = async (eventName: string) => {
      const tr = trigger('CUSTOM_EVENT', { eventName });
      const w = node('WAIT', { duration: MIN });
      const ex = node('EXIT');
      return journey(e, [tr, w, ex], [edge(tr, w), edge(w, ex)], { allowAnonymous: true });
    };
    const moved = await mk('go1');
    const clash = await mk('go2');
    await e.sdk('POST', '/api/sdk/identify', { userId: 'known', traits: {} });
    await send(e, [custom('known', 'go2')]);
    await send(e, [
      { type: 'CUSTOM', name: 'go1', anonymousId: 'visitor-1' },
      { type: 'CUSTOM', name: 'go2', anonymousId: 'visitor-1' },
    ]);
    expect((await enrollments(e, clash)).map((x) => x.endUser.userId).sort()).toEqual(['known', null].sort());
    const res = await e.sdk('POST', '/api/sdk/identify', { userId: 'known', anonymousId: 'visitor-1' });
    expect(res.statusCode, res.body).toBeLessThan(300);
    const movedList = await enrollments(e, moved);
    expect(movedList.map((x) => [x.endUser.userId, x.status])).toEqual([['known', 'in_progress']]);
    const clashList = await enrollments(e, clash);
    expect(clashList.map((x) => [x.endUser.userId, x.status])).toEqual([['known', 'in_progress']]);
  });
});

describe('GET /api/journeys/:id/analytics', () => {
  it('agrees with the reference journeyStats on the stored history', async () => {
    const e = await env();
    const tr = trigger('CUSTOM_EVENT', { eventName: 'go' });
    const split = node('SPLIT', {
      branches: [
        { label: 'A', percentage: 50 },
        { label: 'B', percentage: 50 },
      ],
    });
    const wa = node('WAIT', { duration: MIN });
    const wb = node('WAIT', { duration: 3 * MIN });
    const ex = node('EXIT');
    const id = await journey(
      e,
      [tr, split, wa, wb, ex],
      [edge(tr, split), edge(split, wa, 'A'), edge(split, wb, 'B'), edge(wa, ex), edge(wb, ex)],
      { goalConfig: { type: 'event', config: { eventName: 'won' } } },
    );
    const users = Array.from({ length: 16 }, (_, i) => `a${i}`);
    await send(
      e,
      users.map((u) => custom(u, 'go')),
    );
    t.clock.advance(30_000);
    await send(
      e,
      users.slice(0, 5).map((u) => custom(u, 'won')),
    );
    await advance(MIN);
    const stats = await dashboard(t, e.tenant, 'GET', `/api/journeys/${id}/analytics`);
    const rows = await rawQuery<{
      id: string;
      status: string;
      enrolled_at: Date;
      goal_reached_at: Date | null;
    }>(
      t.deps.database.db,
      'select id, status, enrolled_at, goal_reached_at from journey_enrollments where journey_id = $1',
      [id],
    );
    const history = await rawQuery<{ enrollment_id: string; node_id: string; exited_at: Date | null }>(
      t.deps.database.db,
      'select enrollment_id, node_id, exited_at from journey_node_visits where journey_id = $1',
      [id],
    );
    const reference = journeyStats(
      rows.map((r) => ({
        id: r.id,
        status: r.status as 'in_progress',
        enrolledAt: new Date(r.enrolled_at).getTime(),
        goalReachedAt: r.goal_reached_at ? new Date(r.goal_reached_at).getTime() : null,
      })),
      history.map((h) => ({
        enrollmentId: h.enrollment_id,
        nodeId: h.node_id,
        exitedAt: h.exited_at ? 1 : null,
      })),
    );
    expect(stats.statuses).toEqual(reference.statuses);
    expect(stats.medianTimeToGoalMs).toBe(reference.medianTimeToGoalMs);
    for (const nodeStats of stats.nodes) {
      const { nodeId, type, ...rest } = nodeStats;
      expect(rest).toEqual(
        reference.nodes[nodeId] ?? {
          entered: 0,
          exited: 0,
          waiting: 0,
          enrollments: 0,
          goalReached: 0,
          conversion: 0,
        },
      );
    }
    expect(stats.statuses.goal_reached).toBe(5);
    expect(stats.nodes.find((x: { nodeId: string }) => x.nodeId === tr.id).entered).toBe(16);
  });
});

describe('archive racing a new enrollment', () => {
  it('the sweep stops an enrollment that committed after its journey was archived, closing its visit and timers', async () => {
    const e = await env();
    const { nodes, edges } = nurture(e.flowId);
    const id = await journey(e, nodes, edges);
    await e.sdk('POST', '/api/sdk/identify', { userId: 'late' });
    await dashboard(t, e.tenant, 'POST', `/api/journeys/${id}/enrollments`, { userId: 'late' });
    // What the race leaves behind: the archive committed, the enrollment (started by a chunk
    // that read the journey as PUBLISHED) committed after its stop.
    await rawQuery(t.deps.database.db, `update journeys set status = 'ARCHIVED' where id = $1`, [id]);
    const [before] = await enrollments(e, id);
    expect(before!.status).toBe('in_progress');
    expect(await timers(id)).not.toEqual([]);

    await t.runJob(JOURNEY_ARCHIVE_SWEEP);
    const [after] = await enrollments(e, id);
    expect(after!.status).toBe('stopped');
    expect(await timers(id)).toEqual([]);
    expect((await visits(after!.id)).every((v) => v.exited_at !== null)).toBe(true);
    // Nothing left to do: a second run changes nothing.
    await t.runJob(JOURNEY_ARCHIVE_SWEEP);
    expect((await enrollments(e, id))[0]!.status).toBe('stopped');
  });
});
