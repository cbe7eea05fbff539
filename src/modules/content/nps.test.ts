import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, insertAudience, type TenantFixture } from '../../../test/helpers/factories.js';
import { auditLogs, type ContentStatus, npsResponses, npsSurveys } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { sampleContentBody } from './samples.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
const SITE = '01900000-0000-7000-8000-0000000000a1';
const SITE_B = '01900000-0000-7000-8000-0000000000b2';
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
});
afterAll(() => t.close());

type Survey = Record<string, unknown> & { id: string; status: ContentStatus; name: string };
type Action = 'publish' | 'unpublish' | 'archive' | 'restore';
const db = () => t.deps.database.db;
const body = (fields: Record<string, unknown> = {}) => ({
  name: 'Quarterly NPS',
  siteId: SITE,
  question: 'How likely are you to recommend us?',
  ...fields,
});

const post = (payload: Record<string, unknown>, headers = acme.owner.headers) =>
  t.inject({ method: 'POST', url: '/api/nps-surveys', headers, payload });
const get = (url: string, headers = acme.owner.headers) => t.inject({ method: 'GET', url, headers });

async function create(fields: Record<string, unknown> = {}, tenant = acme): Promise<Survey> {
  const res = await post(body(fields), tenant.owner.headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

function act(id: string, action: Action, headers = acme.owner.headers) {
  return action === 'archive'
    ? t.inject({ method: 'DELETE', url: `/api/nps-surveys/${id}`, headers })
    : t.inject({ method: 'POST', url: `/api/nps-surveys/${id}/${action}`, headers });
}

function expectInvalid(res: LightMyRequestResponse, path: string) {
  const err = expectError(res, 400, 'VALIDATION_ERROR');
  expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
}

describe('NPS surveys', () => {
  it('creates, reads and updates an NPS survey', async () => {
    const audienceId = await insertAudience(t, acme.tenantId, {
      name: 'All',
      ruleTree: { field: 'userId', operator: 'exists' },
    });
    const res = await post(
      body({
        followUpQuestion: 'What is the main reason for your score?',
        audienceId,
        triggerConfig: { type: 'time_on_page', delay: 30000 },
        status: 'PUBLISHED',
      }),
    );
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toEqual({
      id: expect.any(String),
      tenantId: acme.tenantId,
      name: 'Quarterly NPS',
      siteId: SITE,
      status: 'DRAFT',
      audienceId,
      triggerConfig: { type: 'time_on_page', delay: 30000 },
      question: 'How likely are you to recommend us?',
      followUpQuestion: 'What is the main reason for your score?',
      publishedAt: null,
      archivedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await get(`/api/nps-surveys/${created.id}`)).json().data).toEqual(created);

    const upd = await t.inject({
      method: 'PATCH',
      url: `/api/nps-surveys/${created.id}`,
      headers: acme.owner.headers,
      payload: {
        name: 'Renamed',
        followUpQuestion: null,
        triggerConfig: { type: 'manual' },
        audienceId: null,
      },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toMatchObject({
      name: 'Renamed',
      followUpQuestion: null,
      triggerConfig: { type: 'manual' },
      audienceId: null,
      question: created.question,
      status: 'DRAFT',
    });
  });

  it('validates fields with exact paths', async () => {
    expectInvalid(await post(body({ name: undefined })), 'name');
    expectInvalid(await post(body({ name: '' })), 'name');
    expectInvalid(await post(body({ siteId: undefined })), 'siteId');
    expectInvalid(await post(body({ siteId: 'x' })), 'siteId');
    expectInvalid(await post(body({ question: undefined })), 'question');
    expectInvalid(await post(body({ question: '' })), 'question');
    expectInvalid(await post(body({ followUpQuestion: 5 })), 'followUpQuestion');
    expectInvalid(
      await post(body({ triggerConfig: { type: 'scroll_depth', percentage: 120 } })),
      'triggerConfig.percentage',
    );
    expectInvalid(
      await post(body({ triggerConfig: { type: 'side_button', buttonPosition: 'up' } })),
      'triggerConfig.buttonPosition',
    );
    expectInvalid(
      await post(body({ triggerConfig: { type: 'url_match', pattern: '(x+)+y', matchType: 'regex' } })),
      'triggerConfig.pattern',
    );
    const foreignAudience = await insertAudience(t, other.tenantId);
    expectInvalid(await post(body({ audienceId: foreignAudience })), 'audienceId');
    const s = await create();
    const patch = (payload: Record<string, unknown>) =>
      t.inject({ method: 'PATCH', url: `/api/nps-surveys/${s.id}`, headers: acme.owner.headers, payload });
    expectInvalid(await patch({ question: '' }), 'question');
    expectInvalid(await patch({ audienceId: foreignAudience }), 'audienceId');
    expectInvalid(await patch({ triggerConfig: { type: 'time_on_page', delay: -5 } }), 'triggerConfig.delay');
  });

  it('lists with status, search, siteId, sort and pagination; ARCHIVED only when asked', async () => {
    const tenant = await createTenant(t);
    t.clock.set(Date.now());
    const a = await create({ name: 'alpha' }, tenant);
    t.clock.advance(1000);
    const b = await create({ name: 'Bravo', siteId: SITE_B }, tenant);
    t.clock.advance(1000);
    const c = await create({ name: 'charlie' }, tenant);
    t.clock.advance(1000);
    await act(b.id, 'publish', tenant.owner.headers);
    await act(c.id, 'archive', tenant.owner.headers);
    const ids = async (q: string) => {
      const res = await get(`/api/nps-surveys${q}`, tenant.owner.headers);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.map((s: Survey) => s.id);
    };
    expect(await ids('')).toEqual([b.id, a.id]);
    expect(await ids('?status=ARCHIVED')).toEqual([c.id]);
    expect(await ids('?status=PUBLISHED')).toEqual([b.id]);
    expect(await ids('?search=BRAV')).toEqual([b.id]);
    expect(await ids(`?siteId=${SITE_B}`)).toEqual([b.id]);
    expect(await ids('?sortBy=name&sortDirection=asc')).toEqual([a.id, b.id]);
    expect(await ids('?sortBy=updatedAt&sortDirection=desc')).toEqual([b.id, a.id]);
    expect(await ids('?sortBy=status&sortDirection=desc')).toEqual([b.id, a.id]);
    expect(await ids('?sortDirection=asc')).toEqual([a.id, b.id]);
    const page = await get('/api/nps-surveys?limit=1&page=2', tenant.owner.headers);
    expect(page.json().meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expect(page.json().data.map((s: Survey) => s.id)).toEqual([a.id]);
    expect(page.json().data[0]).toEqual({
      id: a.id,
      tenantId: tenant.tenantId,
      name: 'alpha',
      siteId: SITE,
      status: 'DRAFT',
      audienceId: null,
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
    });
    expectInvalid(await get('/api/nps-surveys?limit=101', tenant.owner.headers), 'query.limit');
    expectInvalid(await get('/api/nps-surveys?sortBy=question', tenant.owner.headers), 'query.sortBy');
    expectInvalid(await get('/api/nps-surveys?status=OPEN', tenant.owner.headers), 'query.status');
  });
});

describe('NPS PATCH that changes nothing', () => {
  it('answers the survey as it is, with no audit row and the same updatedAt', async () => {
    const s = await create({
      followUpQuestion: 'Why?',
      triggerConfig: { type: 'url_match', pattern: '/app/**', matchType: 'glob' },
    });
    const at = Date.parse(s.updatedAt as string) + 3_600_000;
    t.clock.set(at);
    try {
      const patch = (payload: Record<string, unknown>) =>
        t.inject({ method: 'PATCH', url: `/api/nps-surveys/${s.id}`, headers: acme.owner.headers, payload });
      const same = {
        name: s.name,
        siteId: s.siteId,
        question: s.question,
        followUpQuestion: 'Why?',
        audienceId: null,
        // the same object, keys in another order
        triggerConfig: { matchType: 'glob', pattern: '/app/**', type: 'url_match' },
      };
      for (const payload of [{}, same, { name: s.name }, { audienceId: null, followUpQuestion: 'Why?' }]) {
        const res = await patch(payload);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data, JSON.stringify(payload)).toEqual(s);
      }
      const rows = await db().select().from(auditLogs).where(eq(auditLogs.entityId, s.id));
      expect(rows.map((r) => r.action)).toEqual(['CONTENT_CREATED']);
      expect((await get(`/api/nps-surveys/${s.id}`)).json().data).toEqual(s);

      const changed = await patch({ ...same, followUpQuestion: null });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().data).toEqual({
        ...s,
        followUpQuestion: null,
        updatedAt: new Date(at).toISOString(),
      });
      const after = await db().select().from(auditLogs).where(eq(auditLogs.entityId, s.id));
      expect(after.map((r) => [r.action, r.metadata]).sort()).toEqual([
        ['CONTENT_CREATED', expect.anything()],
        ['CONTENT_UPDATED', { changes: ['followUpQuestion'] }],
      ]);
    } finally {
      t.clock.set(Date.now());
    }
  });
});

describe('NPS lifecycle: every state × action through HTTP', () => {
  const EXPECTED: Record<ContentStatus, Record<Action, ContentStatus | null>> = {
    DRAFT: { publish: 'PUBLISHED', unpublish: null, archive: 'ARCHIVED', restore: null },
    SCHEDULED: { publish: 'PUBLISHED', unpublish: 'DRAFT', archive: 'ARCHIVED', restore: null },
    PUBLISHED: { publish: null, unpublish: 'DRAFT', archive: 'ARCHIVED', restore: null },
    ARCHIVED: { publish: null, unpublish: null, archive: 'ARCHIVED', restore: 'DRAFT' },
  };
  const cases = (Object.keys(EXPECTED) as ContentStatus[]).flatMap((state) =>
    (['publish', 'unpublish', 'archive', 'restore'] as const).map((action) => [state, action] as const),
  );

  async function surveyIn(state: ContentStatus): Promise<Survey> {
    const s = await create();
    if (state === 'DRAFT') return s;
    if (state === 'SCHEDULED') {
      // No route schedules an NPS survey; the state exists in the shared table.
      await db().update(npsSurveys).set({ status: 'SCHEDULED' }).where(eq(npsSurveys.id, s.id));
      return { ...s, status: 'SCHEDULED' };
    }
    const res = await act(s.id, state === 'PUBLISHED' ? 'publish' : 'archive');
    expect(res.statusCode).toBe(200);
    return res.json().data;
  }

  it.each(cases)('%s --%s-->', async (state, action) => {
    const s = await surveyIn(state);
    const res = await act(s.id, action);
    const expected = EXPECTED[state][action];
    const after = (await get(`/api/nps-surveys/${s.id}`)).json().data;
    if (expected === null) {
      expect(expectError(res, 409, 'INVALID_STATE_TRANSITION').details).toEqual({ from: state, action });
      expect(after.status).toBe(state);
    } else {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.status).toBe(expected);
      expect(after.status).toBe(expected);
    }
  });

  it('stamps publishedAt and archivedAt and audits with entityType nps_survey', async () => {
    t.clock.set(Date.parse('2033-01-01T00:00:00Z'));
    const s = await create();
    const pub = (await act(s.id, 'publish')).json().data;
    expect(pub.publishedAt).toBe('2033-01-01T00:00:00.000Z');
    const arch = (await act(s.id, 'archive')).json().data;
    expect(arch.archivedAt).toBe('2033-01-01T00:00:00.000Z');
    expect((await act(s.id, 'archive')).json().data).toEqual(arch); // no-op
    const restored = (await act(s.id, 'restore')).json().data;
    expect(restored).toMatchObject({ status: 'DRAFT', archivedAt: null });
    await t.inject({
      method: 'PATCH',
      url: `/api/nps-surveys/${s.id}`,
      headers: acme.owner.headers,
      payload: { question: 'Would you recommend us?' },
    });
    const rows = await db()
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.entityId, s.id))
      .orderBy(auditLogs.createdAt, auditLogs.id);
    expect(rows.map((r) => [r.action, r.metadata])).toEqual([
      ['CONTENT_CREATED', { name: 'Quarterly NPS', status: 'DRAFT' }],
      ['CONTENT_UPDATED', { transition: { from: 'DRAFT', to: 'PUBLISHED', action: 'publish' } }],
      ['CONTENT_ARCHIVED', { transition: { from: 'PUBLISHED', to: 'ARCHIVED', action: 'archive' } }],
      ['CONTENT_UPDATED', { transition: { from: 'ARCHIVED', to: 'DRAFT', action: 'restore' } }],
      ['CONTENT_UPDATED', { changes: ['question'] }],
    ]);
    for (const r of rows) expect(r).toMatchObject({ entityType: 'nps_survey', actorId: acme.owner.userId });
  });
});

async function addResponses(
  surveyId: string,
  scores: number[],
  at = Date.parse('2030-05-10T12:00:00Z'),
  tenantId = acme.tenantId,
) {
  const ids: string[] = [];
  for (const [i, score] of scores.entries()) {
    const id = newId();
    ids.push(id);
    await db()
      .insert(npsResponses)
      .values({
        id,
        tenantId,
        npsSurveyId: surveyId,
        score,
        comment: score >= 9 ? 'love it' : null,
        submittedAt: new Date(at + i * 1000),
        eventId: newId(),
      });
  }
  return ids;
}

describe('NPS responses and results', () => {
  it('lists responses newest first with pagination', async () => {
    const s = await create();
    const ids = await addResponses(s.id, [3, 10, 8]);
    await addResponses((await create()).id, [5]);
    const viewer = await acme.as('VIEWER');
    const res = await get(`/api/nps-surveys/${s.id}/responses?limit=2`, viewer.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          id: ids[2],
          npsSurveyId: s.id,
          endUserId: null,
          score: 8,
          comment: null,
          submittedAt: '2030-05-10T12:00:02.000Z',
          tenantId: acme.tenantId,
        },
        {
          id: ids[1],
          npsSurveyId: s.id,
          endUserId: null,
          score: 10,
          comment: 'love it',
          submittedAt: '2030-05-10T12:00:01.000Z',
          tenantId: acme.tenantId,
        },
      ],
      meta: { page: 1, limit: 2, total: 3, totalPages: 2 },
    });
    expectInvalid(await get(`/api/nps-surveys/${s.id}/responses?page=0`), 'query.page');
  });

  it('computes NPS on known fixtures', async () => {
    const results = async (scores: number[]) => {
      const s = await create();
      await addResponses(s.id, scores);
      const res = await get(`/api/nps-surveys/${s.id}/results`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data;
    };
    const balanced = await results([10, 9, 8, 7, 6, 0]);
    expect(balanced).toEqual({
      npsSurveyId: expect.any(String),
      totalResponses: 6,
      promoters: 2,
      passives: 2,
      detractors: 2,
      promoterPercentage: 33.3,
      passivePercentage: 33.3,
      detractorPercentage: 33.3,
      npsScore: 0,
      dateRange: { startDate: null, endDate: null },
    });
    expect(await results([10, 10, 9, 3])).toMatchObject({
      totalResponses: 4,
      promoters: 3,
      passives: 0,
      detractors: 1,
      promoterPercentage: 75,
      passivePercentage: 0,
      detractorPercentage: 25,
      npsScore: 50,
    });
    expect(await results([0, 1, 9])).toMatchObject({ npsScore: -33.3, detractorPercentage: 66.7 });
    expect(await results([])).toMatchObject({
      totalResponses: 0,
      promoters: 0,
      passives: 0,
      detractors: 0,
      promoterPercentage: 0,
      passivePercentage: 0,
      detractorPercentage: 0,
      npsScore: 0,
    });
  });

  it('restricts results to startDate/endDate (dates or date-times) and checks them', async () => {
    const s = await create();
    await addResponses(s.id, [10], Date.parse('2030-01-01T10:00:00Z'));
    await addResponses(s.id, [0], Date.parse('2030-01-02T23:00:00Z'));
    await addResponses(s.id, [8], Date.parse('2030-01-03T00:00:00Z'));
    const r = async (q: string) => (await get(`/api/nps-surveys/${s.id}/results${q}`)).json().data;
    expect((await r('')).totalResponses).toBe(3);
    const jan2 = await r('?startDate=2030-01-02&endDate=2030-01-02');
    expect(jan2).toMatchObject({
      totalResponses: 1,
      detractors: 1,
      npsScore: -100,
      dateRange: { startDate: '2030-01-02T00:00:00.000Z', endDate: '2030-01-02T23:59:59.999Z' },
    });
    expect(await r('?startDate=2030-01-01T10:00:00Z')).toMatchObject({ totalResponses: 3 });
    expect(await r('?startDate=2030-01-01T10:00:00.001Z')).toMatchObject({ totalResponses: 2 });
    expect(await r('?endDate=2030-01-01T10:00:00Z')).toMatchObject({ totalResponses: 1, npsScore: 100 });
    expectInvalid(await get(`/api/nps-surveys/${s.id}/results?startDate=yesterday`), 'query.startDate');
    expectInvalid(
      await get(`/api/nps-surveys/${s.id}/results?startDate=2030-02-01&endDate=2030-01-01`),
      'query.endDate',
    );
  });
});

describe('NPS access', () => {
  it('lets VIEWER read and EDITOR write', async () => {
    const viewer = await acme.as('VIEWER');
    const editor = await acme.as('EDITOR');
    const s = await create();
    for (const url of [
      '/api/nps-surveys',
      `/api/nps-surveys/${s.id}`,
      `/api/nps-surveys/${s.id}/responses`,
      `/api/nps-surveys/${s.id}/results`,
    ]) {
      expect((await get(url, viewer.headers)).statusCode, url).toBe(200);
    }
    const writes = [
      { method: 'POST' as const, url: '/api/nps-surveys', payload: body() },
      { method: 'PATCH' as const, url: `/api/nps-surveys/${s.id}`, payload: { name: 'x' } },
      { method: 'POST' as const, url: `/api/nps-surveys/${s.id}/publish` },
      { method: 'POST' as const, url: `/api/nps-surveys/${s.id}/unpublish` },
      { method: 'DELETE' as const, url: `/api/nps-surveys/${s.id}` },
      { method: 'POST' as const, url: `/api/nps-surveys/${s.id}/restore` },
    ];
    for (const w of writes)
      expectError(await t.inject({ ...w, headers: viewer.headers }), 403, 'INSUFFICIENT_ROLE');
    for (const w of writes)
      expect((await t.inject({ ...w, headers: editor.headers })).statusCode).toBeLessThan(300);
    expectError(await t.inject({ method: 'GET', url: '/api/nps-surveys' }), 401, 'AUTH_NO_TOKEN');
  });

  it('answers 404 CONTENT_NOT_FOUND to another tenant and for unknown, malformed and content ids', async () => {
    const s = await create();
    await addResponses(s.id, [9]);
    const contentItem = (
      await t.inject({
        method: 'POST',
        url: '/api/content/surveys',
        headers: acme.owner.headers,
        payload: sampleContentBody('surveys', SITE),
      })
    ).json().data;
    const routes = (id: string) => [
      { method: 'GET' as const, url: `/api/nps-surveys/${id}` },
      { method: 'PATCH' as const, url: `/api/nps-surveys/${id}`, payload: { name: 'stolen' } },
      { method: 'DELETE' as const, url: `/api/nps-surveys/${id}` },
      { method: 'POST' as const, url: `/api/nps-surveys/${id}/publish` },
      { method: 'POST' as const, url: `/api/nps-surveys/${id}/unpublish` },
      { method: 'POST' as const, url: `/api/nps-surveys/${id}/restore` },
      { method: 'GET' as const, url: `/api/nps-surveys/${id}/responses` },
      { method: 'GET' as const, url: `/api/nps-surveys/${id}/results` },
    ];
    for (const r of routes(s.id))
      expectError(await t.inject({ ...r, headers: other.owner.headers }), 404, 'CONTENT_NOT_FOUND');
    for (const id of [UNKNOWN_ID, 'not-a-uuid', contentItem.id]) {
      for (const r of routes(id))
        expectError(await t.inject({ ...r, headers: acme.owner.headers }), 404, 'CONTENT_NOT_FOUND');
    }
    expect((await get(`/api/nps-surveys/${s.id}`)).json().data).toMatchObject({
      name: s.name,
      status: 'DRAFT',
    });
    expect((await get('/api/nps-surveys', other.owner.headers)).json().data).toEqual([]);
  });
});
