import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { newId } from '../../platform/ids.js';
import { analyticsRollupsEffect } from './rollups-effect.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let acmeKey: string;
let viewer: Record<string, string>;
let flowId: string;
let stepIds: string[];

const SITE = '0190a000-0000-7000-8000-000000000001';
const PAGE = 'https://app.example.com/dashboard';

const at = (day: string, hour = 10) => `${day}T${String(hour).padStart(2, '0')}:00:00.000Z`;

async function apiKey(tenant: TenantFixture) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/tenants/api-keys',
    headers: tenant.owner.headers,
    payload: { name: 'sdk' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.key as string;
}

async function send(key: string, events: Record<string, unknown>[]) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/sdk/events',
    headers: { 'x-api-key': key },
    payload: { events },
  });
  expect(res.statusCode, res.body).toBe(202);
}

async function createFlow(tenant: TenantFixture, name: string, steps: Record<string, unknown>[] = []) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/flows',
    headers: tenant.owner.headers,
    payload: { name, siteId: SITE, template: 'PRODUCT_TOUR', steps },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; steps: { id: string; order: number }[] };
}

const get = (url: string, headers: Record<string, string> = viewer) =>
  t.inject({ method: 'GET', url, headers });

const flowEvent = (
  type: string,
  day: string,
  props: Record<string, unknown>,
  who: Record<string, unknown> = {},
) => ({
  type,
  timestamp: at(day),
  properties: { flowId, ...props },
  ...who,
});
const stepViewed = (stepIndex: unknown, day: string, who: Record<string, unknown> = {}) =>
  flowEvent('STEP_VIEWED', day, { stepIndex }, who);

/**
 * The fixture, all in March 2026 (plus one February day). In 2026-03-10..12:
 *  - flow events: 4 FLOW_STARTED (u1, u2, u3, anonymous), step 0 viewed by u1 (twice), u2, u3
 *    and by two events without userId (→ reached 5), step 1 by u1, u2 and one event without
 *    userId (→ 3), step 2 by u1, u2 (→ 2), FLOW_COMPLETED twice by u1 (→ 2 events, 1 user),
 *    FLOW_DISMISSED by u3, FLOW_SKIPPED anonymous; plus a FLOW_STARTED naming no uuid flow and
 *    a STEP_VIEWED whose stepIndex is a string (counted only in totals);
 *  - heatmap events on PAGE (see the heatmap test) by u4;
 *  - a retried request with the same client ids (counts once).
 * On 2026-03-20: one STEP_VIEWED of step 0 by u9. On 2026-02-28: u1 and u5 view step 0 (and
 * u1 a page). On 2026-03-25: u7 and u8 view step 2; u6, u7 and u8 complete the flow.
 */
let fixtureEvents = 0;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
  acmeKey = await apiKey(acme);
  viewer = (await acme.as('VIEWER')).headers;
  const flow = await createFlow(acme, 'Onboarding', [
    { type: 'MODAL', content: { title: 'Welcome' } },
    { type: 'TOOLTIP', content: { title: 'Profile' } },
    { type: 'TOOLTIP', content: { body: 'no title' } },
  ]);
  flowId = flow.id;
  stepIds = flow.steps.map((s) => s.id);
  const published = await t.inject({
    method: 'POST',
    url: `/api/flows/${flowId}/publish`,
    headers: acme.owner.headers,
  });
  expect(published.statusCode, published.body).toBe(200);
  await createFlow(acme, 'Draft flow');
  const archived = await createFlow(acme, 'Old flow');
  const res = await t.inject({
    method: 'POST',
    url: `/api/flows/${archived.id}/archive`,
    headers: acme.owner.headers,
  });
  expect(res.statusCode, res.body).toBe(200);

  const d10 = '2026-03-10';
  const d11 = '2026-03-11';
  const d12 = '2026-03-12';
  const u = (userId: string) => ({ userId });
  const anon = { anonymousId: 'anon-1' };
  const flowEvents = [
    flowEvent('FLOW_STARTED', d10, {}, u('u1')),
    flowEvent('FLOW_STARTED', d10, {}, u('u2')),
    flowEvent('FLOW_STARTED', d11, {}, u('u3')),
    flowEvent('FLOW_STARTED', d11, {}, anon),
    stepViewed(0, d10, u('u1')),
    stepViewed(0, d11, u('u1')),
    stepViewed(0, d10, u('u2')),
    stepViewed(0, d11, u('u3')),
    stepViewed(0, d11, anon),
    stepViewed(0, d12, anon),
    stepViewed(1, d10, u('u1')),
    stepViewed(1, d10, u('u2')),
    stepViewed(1, d12, {}),
    stepViewed('1', d12, u('u3')),
    stepViewed(2, d10, u('u1')),
    stepViewed(2, d12, u('u2')),
    flowEvent('FLOW_COMPLETED', d10, {}, u('u1')),
    flowEvent('FLOW_COMPLETED', d12, {}, u('u1')),
    flowEvent('FLOW_DISMISSED', d11, {}, u('u3')),
    flowEvent('FLOW_SKIPPED', d12, {}, anon),
    { type: 'FLOW_STARTED', timestamp: at(d12), properties: { flowId: 'not-a-uuid' }, userId: 'u1' },
  ];
  const click = (props: Record<string, unknown>, url = PAGE, type = 'CLICK') => ({
    type,
    url,
    timestamp: at(d11),
    userId: 'u4',
    properties: props,
  });
  const heatEvents = [
    click({ x: 10, y: 20, selector: '#save' }),
    click({ x: 10, y: 20, selector: '#save' }),
    click({ x: 10, y: 20, selector: '#save' }, `${PAGE}#billing`),
    click({ x: 10.4, y: 19.6, selector: '#save' }),
    click({ x: 50, y: 60, selector: '.nav' }),
    click({ selector: '.nav' }),
    click({ x: 1, y: 2 }),
    click({ x: 10, y: 20, selector: '#save', clickCount: 5 }, PAGE, 'RAGE_CLICK'),
    click({ selector: '.hero' }, PAGE, 'DEAD_CLICK'),
    click({ x: 10, y: 20, selector: '#save' }, 'https://app.example.com/settings'),
    click({ x: 10, y: 20, selector: '#save' }, `${PAGE}?tab=2`),
  ];
  const retried = [
    { id: newId(), type: 'PAGE_VIEW', url: PAGE, timestamp: at(d12), userId: 'u1' },
    { id: newId(), type: 'CUSTOM', name: 'signup', timestamp: at(d12), anonymousId: 'anon-2' },
  ];
  await send(acmeKey, flowEvents);
  await send(acmeKey, heatEvents);
  await send(acmeKey, retried);
  await send(acmeKey, retried);
  fixtureEvents = flowEvents.length + heatEvents.length + retried.length;
  await send(acmeKey, [stepViewed(0, '2026-03-20', u('u9'))]);
  await send(acmeKey, [
    { type: 'PAGE_VIEW', timestamp: at('2026-02-28'), userId: 'u1' },
    stepViewed(0, '2026-02-28', u('u1')),
    stepViewed(0, '2026-02-28', u('u5')),
  ]);
  await send(acmeKey, [
    stepViewed(2, '2026-03-25', u('u7')),
    stepViewed(2, '2026-03-25', u('u8')),
    flowEvent('FLOW_COMPLETED', '2026-03-25', {}, u('u6')),
    flowEvent('FLOW_COMPLETED', '2026-03-25', {}, u('u7')),
    flowEvent('FLOW_COMPLETED', '2026-03-25', {}, u('u8')),
  ]);
  await t.processEvents();
  // the same request once more after processing: still counted once
  await send(acmeKey, retried);
  await t.processEvents();
});
afterAll(() => t.close());

const MARCH = 'startDate=2026-03-10&endDate=2026-03-12';

describe('GET /api/analytics/overview', () => {
  it('answers the fixture figures for a range', async () => {
    const res = await get(`/api/analytics/overview?${MARCH}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      totalFlows: 2,
      publishedFlows: 1,
      // u1, u2, u3, u4, anon-1, anon-2
      activeUsers: 6,
      totalEvents: fixtureEvents,
      flowCompletions: 2,
      completionRate: 0.5,
      dateRange: { startDate: '2026-03-10', endDate: '2026-03-12' },
    });
  });

  it('filters by date range, counting users once across months', async () => {
    const one = (await get('/api/analytics/overview?startDate=2026-03-20&endDate=2026-03-20')).json().data;
    expect(one).toMatchObject({ activeUsers: 1, totalEvents: 1, flowCompletions: 0, completionRate: 0 });
    const wide = (await get('/api/analytics/overview?startDate=2026-02-27&endDate=2026-03-31')).json().data;
    // + u5 (February), u9 (March 20), u6-u8 (March 25); u1 of February is the same user
    expect(wide).toMatchObject({ activeUsers: 11, totalEvents: fixtureEvents + 9, flowCompletions: 5 });
    const none = (await get('/api/analytics/overview?startDate=2026-03-13&endDate=2026-03-19')).json().data;
    expect(none).toMatchObject({ activeUsers: 0, totalEvents: 0, flowCompletions: 0 });
  });

  it('takes date-times as the UTC day they fall on', async () => {
    const res = await get(
      '/api/analytics/overview?startDate=2026-03-10T23:30:00-01:00&endDate=2026-03-12T08:00:00.000Z',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      totalEvents: fixtureEvents - 8, // the eight events of the 10th are out
      // echoed exactly as sent
      dateRange: { startDate: '2026-03-10T23:30:00-01:00', endDate: '2026-03-12T08:00:00.000Z' },
    });
  });

  it('defaults to all time: from 2000-01-01 to today (UTC), each open bound on its own', async () => {
    t.clock.set(Date.parse('2026-04-08T15:00:00.000Z'));
    try {
      const all = (await get('/api/analytics/overview')).json().data;
      expect(all.dateRange).toEqual({ startDate: '2000-01-01', endDate: '2026-04-08' });
      // every event of the fixture, February included; users counted once
      expect(all).toMatchObject({ totalEvents: fixtureEvents + 9, activeUsers: 11, flowCompletions: 5 });
      const onlyEnd = (await get('/api/analytics/overview?endDate=2026-03-11')).json().data;
      expect(onlyEnd.dateRange).toEqual({ startDate: '2000-01-01', endDate: '2026-03-11' });
      expect(onlyEnd.totalEvents).toBe(fixtureEvents - 9 + 3); // the 12th's nine out, February's three in
      const onlyStart = (await get('/api/analytics/overview?startDate=2026-03-20T12:00:00Z')).json().data;
      expect(onlyStart.dateRange).toEqual({ startDate: '2026-03-20T12:00:00Z', endDate: '2026-04-08' });
      expect(onlyStart).toMatchObject({ totalEvents: 6, activeUsers: 4 });
      // an open bound never makes the range invalid
      const early = await get('/api/analytics/overview?endDate=1999-06-01');
      expect(early.statusCode, early.body).toBe(200);
      expect(early.json().data).toMatchObject({
        totalEvents: 0,
        dateRange: { startDate: '1999-06-01', endDate: '1999-06-01' },
      });
      const late = await get('/api/analytics/overview?startDate=2026-05-01');
      expect(late.statusCode, late.body).toBe(200);
      expect(late.json().data).toMatchObject({
        totalEvents: 0,
        dateRange: { startDate: '2026-05-01', endDate: '2026-05-01' },
      });
      const flow = (await get(`/api/analytics/flows/${flowId}`)).json().data;
      expect(flow).toMatchObject({
        totalStarts: 4,
        completed: 5,
        dateRange: { startDate: '2000-01-01', endDate: '2026-04-08' },
      });
      const heat = (await get(`/api/analytics/heatmaps?url=${encodeURIComponent(PAGE)}`)).json().data;
      expect(heat).toMatchObject({
        totalClicks: 7,
        dateRange: { startDate: '2000-01-01', endDate: '2026-04-08' },
      });
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('takes ranges of any length', async () => {
    const long = await get('/api/analytics/overview?startDate=1970-01-01&endDate=2199-12-31');
    expect(long.statusCode, long.body).toBe(200);
    expect(long.json().data).toMatchObject({
      totalEvents: fixtureEvents + 9,
      activeUsers: 11,
      dateRange: { startDate: '1970-01-01', endDate: '2199-12-31' },
    });
    const flow = await get(`/api/analytics/flows/${flowId}?startDate=2000-01-01&endDate=2100-01-01`);
    expect(flow.statusCode, flow.body).toBe(200);
    expect(flow.json().data.stepDropOff.map((s: { reached: number }) => s.reached)).toEqual([7, 3, 4]);
  });

  it('validates the dates', async () => {
    const cases: [string, string][] = [
      ['startDate=yesterday', 'query.startDate'],
      ['endDate=2026-13-01', 'query.endDate'],
      ['startDate=2026-02-30', 'query.startDate'],
      ['startDate=2026-03-12&endDate=2026-03-10', 'query.startDate'],
      ['startDate=2026-03-12T00:00:00Z&endDate=2026-03-11T23:59:59Z', 'query.startDate'],
      ['startDate=', 'query.startDate'],
    ];
    for (const [qs, path] of cases) {
      const error = expectError(await get(`/api/analytics/overview?${qs}`), 400, 'VALIDATION_ERROR');
      expect(
        (error.details as { path: string }[]).map((d) => d.path),
        qs,
      ).toEqual([path]);
    }
    // the same day at both ends is one day
    expect((await get('/api/analytics/overview?startDate=2026-03-11&endDate=2026-03-11')).statusCode).toBe(
      200,
    );
  });

  it('is for members only, of any role', async () => {
    expectError(await get('/api/analytics/overview', {}), 401, 'AUTH_NO_TOKEN');
    expect((await get('/api/analytics/overview', acme.owner.headers)).statusCode).toBe(200);
  });
});

describe('GET /api/analytics/flows/:flowId', () => {
  it('answers totals and the drop-off of each current step', async () => {
    const res = await get(`/api/analytics/flows/${flowId}?${MARCH}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      flowId,
      flowName: 'Onboarding',
      totalStarts: 4,
      completed: 2,
      dismissed: 1,
      skipped: 1,
      completionRate: 0.5,
      stepDropOff: [
        {
          stepId: stepIds[0],
          stepOrder: 0,
          stepTitle: 'Welcome',
          reached: 5,
          dropOffCount: 2,
          dropOffRate: 0.4,
        },
        {
          stepId: stepIds[1],
          stepOrder: 1,
          stepTitle: 'Profile',
          reached: 3,
          dropOffCount: 1,
          dropOffRate: 1 / 3,
        },
        // last step: reached 2 − 1 user who completed
        { stepId: stepIds[2], stepOrder: 2, stepTitle: null, reached: 2, dropOffCount: 1, dropOffRate: 0.5 },
      ],
      dateRange: { startDate: '2026-03-10', endDate: '2026-03-12' },
    });
  });

  it('filters by range, counting a user once across months', async () => {
    const wide = (await get(`/api/analytics/flows/${flowId}?startDate=2026-02-01&endDate=2026-03-31`)).json()
      .data;
    // step 0: the five of March, u5 (February) and u9 (March 20); u1 again in February counts once
    // step 2: u1, u2, u7, u8; completed: u1, u6, u7, u8
    expect(wide.stepDropOff.map((s: { reached: number }) => s.reached)).toEqual([7, 3, 4]);
    expect(wide.stepDropOff.map((s: { dropOffCount: number }) => s.dropOffCount)).toEqual([4, 0, 0]);
    expect(wide.stepDropOff[0]).toMatchObject({ dropOffRate: 4 / 7 });
    expect(wide).toMatchObject({ totalStarts: 4, completed: 5, completionRate: 1 });
    const feb = (await get(`/api/analytics/flows/${flowId}?startDate=2026-02-28&endDate=2026-02-28`)).json()
      .data;
    expect(feb).toMatchObject({ totalStarts: 0, completed: 0, completionRate: 0 });
    expect(
      feb.stepDropOff.map((s: { reached: number; dropOffCount: number }) => [s.reached, s.dropOffCount]),
    ).toEqual([
      [2, 2],
      [0, 0],
      [0, 0],
    ]);
  });

  it('never answers a negative drop-off', async () => {
    // the 25th: nobody views steps 0 and 1, two users view step 2 and three complete
    const res = await get(`/api/analytics/flows/${flowId}?startDate=2026-03-25&endDate=2026-03-25`);
    const data = res.json().data;
    expect(data).toMatchObject({ totalStarts: 0, completed: 3, completionRate: 0 });
    const steps = data.stepDropOff as { reached: number; dropOffCount: number; dropOffRate: number }[];
    expect(steps.map((s) => [s.reached, s.dropOffCount, s.dropOffRate])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [2, 0, 0],
    ]);
  });

  it('answers an empty step list for a flow without steps, and 404 for unknown, malformed or foreign ids', async () => {
    const bare = await createFlow(acme, 'Bare');
    const res = await get(`/api/analytics/flows/${bare.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      flowName: 'Bare',
      totalStarts: 0,
      stepDropOff: [],
      completionRate: 0,
    });
    const foreign = await createFlow(other, 'Theirs');
    for (const id of [newId(), 'nope', foreign.id]) {
      expectError(await get(`/api/analytics/flows/${id}`), 404, 'CONTENT_NOT_FOUND');
    }
    expectError(await get(`/api/analytics/flows/${flowId}`, other.owner.headers), 404, 'CONTENT_NOT_FOUND');
    expectError(await get(`/api/analytics/flows/${flowId}?startDate=x`), 400, 'VALIDATION_ERROR');
  });
});

describe('integrity: flow events count only for flows of the sending tenant', () => {
  it('ignores events naming another tenant’s flow or an unknown id, everywhere; counts its own flows, archived ones too', async () => {
    const intruder = await createTenant(t);
    const key = await apiKey(intruder);
    const own = await createFlow(intruder, 'Own');
    const day = '2026-03-11';
    const named = (type: string, id: string, userId = 'x1') => ({
      type,
      timestamp: at(day),
      userId,
      properties: { flowId: id, stepIndex: 0 },
    });
    const before = (await get(`/api/analytics/flows/${flowId}?${MARCH}`)).json().data;
    const acmeOverview = (await get(`/api/analytics/overview?${MARCH}`)).json().data;
    const unknown = newId();
    await send(key, [
      named('FLOW_STARTED', flowId),
      named('STEP_VIEWED', flowId),
      named('FLOW_COMPLETED', flowId),
      named('FLOW_COMPLETED', flowId, 'x2'),
      named('FLOW_STARTED', unknown),
      named('FLOW_COMPLETED', unknown),
      named('FLOW_STARTED', own.id),
    ]);
    await t.processEvents();

    const mine = (await get(`/api/analytics/overview?${MARCH}`, intruder.owner.headers)).json().data;
    expect(mine).toMatchObject({ totalFlows: 1, flowCompletions: 0, completionRate: 0, totalEvents: 7 });
    expectError(
      await get(`/api/analytics/flows/${flowId}?${MARCH}`, intruder.owner.headers),
      404,
      'CONTENT_NOT_FOUND',
    );
    expectError(
      await get(`/api/analytics/flows/${unknown}`, intruder.owner.headers),
      404,
      'CONTENT_NOT_FOUND',
    );
    expect(
      (await get(`/api/analytics/flows/${own.id}?${MARCH}`, intruder.owner.headers)).json().data,
    ).toMatchObject({ totalStarts: 1, completed: 0 });
    // the flow's owner sees none of it either
    expect((await get(`/api/analytics/flows/${flowId}?${MARCH}`)).json().data).toEqual(before);
    expect((await get(`/api/analytics/overview?${MARCH}`)).json().data).toEqual(acmeOverview);

    // an archived flow of the tenant still counts
    await send(key, [named('FLOW_COMPLETED', own.id)]);
    await t.processEvents();
    const archived = await t.inject({
      method: 'POST',
      url: `/api/flows/${own.id}/archive`,
      headers: intruder.owner.headers,
    });
    expect(archived.statusCode).toBe(200);
    expect((await get(`/api/analytics/overview?${MARCH}`, intruder.owner.headers)).json().data).toMatchObject(
      {
        totalFlows: 0,
        flowCompletions: 1,
        completionRate: 1,
      },
    );
  });
});

describe('GET /api/analytics/heatmaps', () => {
  it('answers points, elements and total clicks of that page', async () => {
    const res = await get(`/api/analytics/heatmaps?url=${encodeURIComponent(PAGE)}&${MARCH}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      url: PAGE,
      dateRange: { startDate: '2026-03-10', endDate: '2026-03-12' },
      totalClicks: 7,
      points: [
        { x: 10, y: 20, selector: '#save', count: 4, rageClicks: 1, deadClicks: 0 },
        { x: 1, y: 2, selector: null, count: 1, rageClicks: 0, deadClicks: 0 },
        { x: 50, y: 60, selector: '.nav', count: 1, rageClicks: 0, deadClicks: 0 },
      ],
      elements: [
        { selector: '#save', clicks: 4, rageClicks: 1, deadClicks: 0 },
        { selector: '.nav', clicks: 2, rageClicks: 0, deadClicks: 0 },
        { selector: '.hero', clicks: 0, rageClicks: 0, deadClicks: 1 },
      ],
    });
  });

  it('matches the url exactly but for the fragment, and filters by date', async () => {
    const withFragment = await get(`/api/analytics/heatmaps?url=${encodeURIComponent(`${PAGE}#x`)}&${MARCH}`);
    expect(withFragment.json().data).toMatchObject({ url: PAGE, totalClicks: 7 });
    const withQuery = await get(
      `/api/analytics/heatmaps?url=${encodeURIComponent(`${PAGE}?tab=2`)}&${MARCH}`,
    );
    expect(withQuery.json().data).toMatchObject({ totalClicks: 1, points: [{ x: 10, y: 20, count: 1 }] });
    const elsewhere = await get(
      `/api/analytics/heatmaps?url=${encodeURIComponent(PAGE)}&startDate=2026-03-12`,
    );
    expect(elsewhere.json().data).toMatchObject({ totalClicks: 0, points: [], elements: [] });
  });

  it('counts clicks without a selector in the total, though they name no element', async () => {
    const tenant = await createTenant(t);
    const page = 'https://app.example.com/blank';
    await send(await apiKey(tenant), [
      { type: 'CLICK', url: page, timestamp: at('2026-03-10'), properties: { x: 3, y: 4 } },
      { type: 'CLICK', url: page, timestamp: at('2026-03-11'), properties: { selector: '  ' } },
      { type: 'DEAD_CLICK', url: page, timestamp: at('2026-03-11') },
    ]);
    await t.processEvents();
    const res = await get(
      `/api/analytics/heatmaps?url=${encodeURIComponent(page)}&${MARCH}`,
      tenant.owner.headers,
    );
    expect(res.json().data).toMatchObject({
      totalClicks: 2,
      points: [{ x: 3, y: 4, selector: null, count: 1, rageClicks: 0, deadClicks: 0 }],
      elements: [],
    });
  });

  it('needs url, and shows another tenant nothing', async () => {
    const error = expectError(await get(`/api/analytics/heatmaps?${MARCH}`), 400, 'VALIDATION_ERROR');
    expect((error.details as { path: string }[]).map((d) => d.path)).toEqual(['query.url']);
    const theirs = await get(
      `/api/analytics/heatmaps?url=${encodeURIComponent(PAGE)}&${MARCH}`,
      other.owner.headers,
    );
    expect(theirs.json().data).toMatchObject({ totalClicks: 0, points: [], elements: [] });
    const overview = await get(`/api/analytics/overview?${MARCH}`, other.owner.headers);
    expect(overview.json().data).toMatchObject({ totalFlows: 1, activeUsers: 0, totalEvents: 0 });
  });
});

describe('OpenAPI', () => {
  it('documents the three routes with their responses', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of [
      '/api/analytics/overview',
      '/api/analytics/flows/{flowId}',
      '/api/analytics/heatmaps',
    ]) {
      expect(Object.keys(doc.paths[path].get.responses), path).toEqual(
        expect.arrayContaining(['200', '400', '401']),
      );
    }
  });
});

describe('concurrent processing', () => {
  it('counts each user once when several processors share the same users', async () => {
    const tenant = await createTenant(t);
    const key = await apiKey(tenant);
    const flow = await createFlow(tenant, 'Busy', [{ type: 'MODAL', content: { title: 'Only' } }]);
    // 30 requests; users u0..u4 on days spread over two months, in no particular order
    const days = ['2026-05-30', '2026-06-02', '2026-05-31', '2026-06-01', '2026-05-29', '2026-06-03'];
    const seen: [user: string, day: string][] = [];
    for (let r = 0; r < 30; r++) {
      const events = Array.from({ length: 10 }, (_, i) => {
        const userId = `u${(r * 3 + i) % 5}`;
        const day = days[(r * 5 + i * 7) % days.length]!;
        seen.push([userId, day]);
        return {
          type: 'STEP_VIEWED',
          timestamp: at(day),
          userId,
          properties: { flowId: flow.id, stepIndex: 0 },
        };
      });
      await send(key, events);
    }
    const usersIn = (from: string, to: string) =>
      new Set(seen.filter(([, d]) => d >= from && d <= to).map(([u]) => u)).size;
    // three processors at once (on PostgreSQL each has its own connection and transaction),
    // running the rollups alone: this checks their locking, not the other effects'
    await Promise.all([
      t.processEvents([analyticsRollupsEffect], { maxBatches: 1 }),
      t.processEvents([analyticsRollupsEffect], { maxBatches: 2 }),
      t.processEvents([analyticsRollupsEffect], { maxBatches: 3 }),
    ]);
    // no chunk failed (a deadlock or a lost race would show as a retried batch)
    const failed = await t.deps.database.query(
      'select id, attempts, last_error from event_batches where tenant_id = $1 and (attempts > 0 or processed_at is null)',
      [tenant.tenantId],
    );
    expect(failed).toEqual([]);
    const overview = async (range: string) =>
      (await get(`/api/analytics/overview?${range}`, tenant.owner.headers)).json().data;
    expect(await overview('startDate=2026-05-29&endDate=2026-06-03')).toMatchObject({
      activeUsers: 5,
      totalEvents: 300,
    });
    for (const day of days) {
      expect((await overview(`startDate=${day}&endDate=${day}`)).activeUsers, day).toBe(usersIn(day, day));
    }
    expect((await overview('startDate=2026-05-31&endDate=2026-06-02')).activeUsers).toBe(
      usersIn('2026-05-31', '2026-06-02'),
    );
    const res = await get(
      `/api/analytics/flows/${flow.id}?startDate=2026-05-31&endDate=2026-06-01`,
      tenant.owner.headers,
    );
    const reached = usersIn('2026-05-31', '2026-06-01');
    expect(res.json().data.stepDropOff[0]).toMatchObject({ reached, dropOffCount: reached, dropOffRate: 1 });
  });
});

describe('known active days', () => {
  it('skip the users whose days are committed already, and still count a day added around them', async () => {
    const tenant = await createTenant(t);
    const key = await apiKey(tenant);
    const view = (userId: string, day: string) => ({ type: 'PAGE_VIEW', timestamp: at(day), userId });
    const run = async (events: Record<string, unknown>[]) => {
      await send(key, events);
      await t.processEvents([analyticsRollupsEffect]);
    };
    // The lock-holder of u1's row: a processor that locks it for update leaves its xid in xmax.
    const lockerOfU1 = async () =>
      (
        await t.deps.database.query<{ xmax: string }>(
          `select xmax::text from analytics_user_days where tenant_id = $1 and scope = 'active' and user_key = 'u:u1'`,
          [tenant.tenantId],
        )
      )[0]?.xmax;
    await run([view('u1', '2026-07-10'), view('u2', '2026-07-10')]);
    await run([view('u1', '2026-07-10')]); // read under lock: now known
    const locker = await lockerOfU1();
    await run([view('u1', '2026-07-10'), view('u2', '2026-07-12')]); // u1 known: left out
    expect(await lockerOfU1()).toBe(locker);
    // days before and between the known ones are new: read, merged and counted
    await run([view('u1', '2026-07-08'), view('u1', '2026-07-11'), view('u2', '2026-07-11')]);
    expect(await lockerOfU1()).not.toBe(locker);
    // a chunk that rolls back (a later effect fails) teaches nothing it did not commit: its new
    // day (after the known ones) is counted when the batch is retried
    const failing = { name: 'failing', apply: () => Promise.reject(new Error('boom')) };
    await send(key, [view('u1', '2026-07-11'), view('u1', '2026-07-13')]);
    await t.processEvents([analyticsRollupsEffect, failing]);
    await t.processEvents([analyticsRollupsEffect]);
    const pending = await t.deps.database.query(
      'select id from event_batches where tenant_id = $1 and processed_at is null',
      [tenant.tenantId],
    );
    expect(pending).toEqual([]);
    const activeUsers = async (from: string, to: string) =>
      (await get(`/api/analytics/overview?startDate=${from}&endDate=${to}`, tenant.owner.headers)).json().data
        .activeUsers;
    const seen: Record<string, string[]> = {
      u1: ['2026-07-08', '2026-07-10', '2026-07-11', '2026-07-13'],
      u2: ['2026-07-10', '2026-07-11', '2026-07-12'],
    };
    const days = [
      '2026-07-07',
      '2026-07-08',
      '2026-07-09',
      '2026-07-10',
      '2026-07-11',
      '2026-07-12',
      '2026-07-13',
    ];
    for (const [i, from] of days.entries())
      for (const to of days.slice(i)) {
        const expected = Object.values(seen).filter((ds) => ds.some((d) => d >= from && d <= to)).length;
        expect(await activeUsers(from, to), `${from}..${to}`).toBe(expected);
      }
  });
});

describe('freshness', () => {
  it('shows an accepted event in the overview within 5 seconds, with the workers running', async () => {
    const tenant = await createTenant(t);
    const key = await apiKey(tenant);
    const overview = async () =>
      (await get('/api/analytics/overview', tenant.owner.headers)).json().data as {
        totalEvents: number;
        activeUsers: number;
      };
    expect((await overview()).totalEvents).toBe(0);
    t.startWorkers();
    await send(key, [{ type: 'PAGE_VIEW', userId: 'fresh' }]);
    await expect.poll(async () => (await overview()).totalEvents, { timeout: 5_000, interval: 100 }).toBe(1);
    expect((await overview()).activeUsers).toBe(1);
  });
});
