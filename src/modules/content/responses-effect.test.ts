import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { endUsers, eventDeadLetters } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { answerProblem, checkAnswers, type Question } from './responses-effect.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let key: string;
let survey: { id: string };

const SITE = '0190a000-0000-7000-8000-000000000001';

const QUESTIONS = [
  { key: 'rating', type: 'RATING', question: 'Rate us', required: true, options: { min: 1, max: 5 } },
  { key: 'why', type: 'TEXT', question: 'Why?' },
  { key: 'plan', type: 'SINGLE_CHOICE', question: 'Plan?', options: { choices: ['free', 'pro'] } },
  { key: 'uses', type: 'MULTIPLE_CHOICE', question: 'Uses?', options: { choices: ['a', 'b', 'c'] } },
  { key: 'again', type: 'BOOLEAN', question: 'Again?' },
];

async function createSurvey(tenant: TenantFixture, questions: unknown[] = QUESTIONS) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/content/surveys',
    headers: tenant.owner.headers,
    payload: { name: 'Feedback', siteId: SITE, questions },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string };
}

async function createNps(tenant: TenantFixture) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/nps-surveys',
    headers: tenant.owner.headers,
    payload: { name: 'NPS', siteId: SITE, question: 'Recommend us?' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string };
}

async function send(events: Record<string, unknown>[]) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/sdk/events',
    headers: { 'x-api-key': key },
    payload: { events },
  });
  expect(res.statusCode, res.body).toBe(202);
}

const get = (url: string) => t.inject({ method: 'GET', url, headers: acme.owner.headers });

async function deadLetterReasons(eventIds: string[]) {
  const rows = await t.deps.database.db
    .select()
    .from(eventDeadLetters)
    .where(eq(eventDeadLetters.tenantId, acme.tenantId));
  const byId = new Map(rows.map((r) => [(r.event as { id: string }).id, r.reason]));
  return eventIds.map((id) => byId.get(id));
}

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
  const res = await t.inject({
    method: 'POST',
    url: '/api/tenants/api-keys',
    headers: acme.owner.headers,
    payload: { name: 'sdk' },
  });
  key = res.json().data.key;
  survey = await createSurvey(acme);
});
afterAll(() => t.close());

describe('SURVEY_RESPONSE events', () => {
  it('store a valid response, listed by the survey, with the end user and the event time', async () => {
    const endUserId = newId();
    await t.deps.database.db
      .insert(endUsers)
      .values({ id: endUserId, tenantId: acme.tenantId, externalId: 'u-42' });
    const id = newId();
    const event = {
      id,
      type: 'SURVEY_RESPONSE',
      userId: 'u-42',
      timestamp: '2026-03-01T10:00:00.000Z',
      properties: {
        surveyId: survey.id,
        answers: { rating: 4, why: 'fast', plan: 'pro', uses: ['a', 'c'], again: true },
      },
    };
    await send([event]);
    await send([event]); // a retry: stored once
    await send([
      {
        type: 'SURVEY_RESPONSE',
        userId: 'u-new',
        timestamp: '2026-03-02T10:00:00.000Z',
        properties: { surveyId: survey.id, answers: { rating: 1, why: '', uses: [] } },
      },
    ]);
    await t.processEvents();
    const res = await get(`/api/content/surveys/${survey.id}/responses`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta.total).toBe(2);
    // the end user of a userId seen for the first time (made by the end-user effect, if any)
    const [created] = await t.deps.database.db
      .select({ id: endUsers.id })
      .from(endUsers)
      .where(and(eq(endUsers.tenantId, acme.tenantId), eq(endUsers.externalId, 'u-new')));
    expect(res.json().data).toEqual([
      {
        id: expect.any(String),
        surveyId: survey.id,
        endUserId: created?.id ?? null,
        response: { rating: 1 },
        submittedAt: '2026-03-02T10:00:00.000Z',
        tenantId: acme.tenantId,
      },
      {
        id: expect.any(String),
        surveyId: survey.id,
        endUserId,
        response: { rating: 4, why: 'fast', plan: 'pro', uses: ['a', 'c'], again: true },
        submittedAt: '2026-03-01T10:00:00.000Z',
        tenantId: acme.tenantId,
      },
    ]);
  });

  it('park invalid responses in event_dead_letters with the reason', async () => {
    const archived = await createSurvey(acme);
    const archive = await t.inject({
      method: 'DELETE',
      url: `/api/content/surveys/${archived.id}`,
      headers: acme.owner.headers,
    });
    expect(archive.statusCode, archive.body).toBe(200);
    const foreign = await createSurvey(other);
    const missing = newId();
    const cases: [Record<string, unknown>, string][] = [
      [{ answers: { rating: 3 } }, 'properties.surveyId is missing'],
      [{ surveyId: missing, answers: { rating: 3 } }, `survey ${missing} not found`],
      [{ surveyId: 'nope', answers: { rating: 3 } }, 'survey nope not found'],
      [{ surveyId: foreign.id, answers: { rating: 3 } }, `survey ${foreign.id} not found`],
      [{ surveyId: archived.id, answers: { rating: 3 } }, `survey ${archived.id} is archived`],
      [{ surveyId: survey.id }, 'properties.answers must be an object keyed by question key'],
      [{ surveyId: survey.id, answers: { why: 'x' } }, 'required question "rating" is not answered'],
      [{ surveyId: survey.id, answers: { rating: 3, color: 'red' } }, 'unknown question key "color"'],
      [{ surveyId: survey.id, answers: { rating: 6 } }, 'answer to "rating" must be an integer from 1 to 5'],
      [
        { surveyId: survey.id, answers: { rating: 3, plan: 'gold' } },
        'answer to "plan" must be one of its choices',
      ],
      [
        { surveyId: survey.id, answers: { rating: 3, uses: ['a', 'z'] } },
        'answer to "uses" has "z", which is not one of its choices',
      ],
      [{ surveyId: survey.id, answers: { rating: 3, again: 'yes' } }, 'answer to "again" must be a boolean'],
      [
        { surveyId: survey.id, answers: { rating: 3, why: 'x'.repeat(10_001) } },
        'answer to "why" is longer than 10000 characters',
      ],
    ];
    const ids = cases.map(() => newId());
    await send(cases.map(([properties], i) => ({ id: ids[i], type: 'SURVEY_RESPONSE', properties })));
    await t.processEvents();
    expect(await deadLetterReasons(ids)).toEqual(cases.map(([, reason]) => reason));
    const listed = await get(`/api/content/surveys/${survey.id}/responses`);
    expect(listed.json().meta.total).toBe(2); // none of them stored
  });

  it('accept the question order as a string in place of its key, stored by question key', async () => {
    const byOrder = await createSurvey(acme);
    const good = newId();
    const mixed = newId();
    await send([
      {
        id: good,
        type: 'SURVEY_RESPONSE',
        properties: { surveyId: byOrder.id, answers: { '0': 5, '2': 'free', '3': ['b'], '4': false } },
      },
      {
        id: mixed,
        type: 'SURVEY_RESPONSE',
        properties: { surveyId: byOrder.id, answers: { rating: 2, '1': 'slow' } },
      },
    ]);
    const cases: [Record<string, unknown>, string][] = [
      [{ '0': 3, rating: 3 }, 'question "rating" is answered twice (as "0" and "rating")'],
      [{ '0': 3, '5': true }, 'unknown question key "5"'],
      [{ '00': 3 }, 'unknown question key "00"'],
      [{ '1': 'only why' }, 'required question "rating" is not answered'],
      [{ '0': 9 }, 'answer to "rating" must be an integer from 1 to 5'],
      [{ '0': 3, '4': 'yes' }, 'answer to "again" must be a boolean'],
    ];
    const ids = cases.map(() => newId());
    await send(
      cases.map(([answers], i) => ({
        id: ids[i],
        type: 'SURVEY_RESPONSE',
        properties: { surveyId: byOrder.id, answers },
      })),
    );
    await t.processEvents();
    expect(await deadLetterReasons([good, mixed])).toEqual([undefined, undefined]);
    expect(await deadLetterReasons(ids)).toEqual(cases.map(([, reason]) => reason));
    const res = await get(`/api/content/surveys/${byOrder.id}/responses`);
    expect(
      res
        .json()
        .data.map((r: { response: Record<string, unknown> }) => r.response)
        .sort((a: { rating: number }, b: { rating: number }) => a.rating - b.rating),
    ).toEqual([
      { rating: 2, why: 'slow' },
      { rating: 5, plan: 'free', uses: ['b'], again: false },
    ]);
  });

  it('accept a draft survey, and do not fail the other events of the chunk', async () => {
    const draft = await createSurvey(acme, [{ key: 'n', type: 'NPS', question: 'Score?', required: true }]);
    const good = newId();
    const bad = newId();
    await send([
      { id: bad, type: 'SURVEY_RESPONSE', properties: { surveyId: draft.id, answers: { n: 11 } } },
      { id: good, type: 'SURVEY_RESPONSE', properties: { surveyId: draft.id, answers: { n: 10 } } },
    ]);
    await t.processEvents();
    const res = await get(`/api/content/surveys/${draft.id}/responses`);
    expect(res.json().data.map((r: { response: unknown }) => r.response)).toEqual([{ n: 10 }]);
    expect(await deadLetterReasons([bad, good])).toEqual([
      'answer to "n" must be an integer from 0 to 10',
      undefined,
    ]);
  });
});

describe('NPS_RESPONSE events', () => {
  it('store scores that feed the results, and park invalid ones', async () => {
    const nps = await createNps(acme);
    const foreign = await createNps(other);
    const valid = [10, 9, 8, 3].map((score, i) => ({
      type: 'NPS_RESPONSE',
      timestamp: '2026-03-05T12:00:00.000Z',
      // `surveyId` is accepted as an alias of `npsSurveyId`
      properties: i === 0 ? { surveyId: nps.id, score } : { npsSurveyId: nps.id, score, comment: 'ok' },
    }));
    const invalid: [Record<string, unknown>, string][] = [
      [{ score: 5 }, 'properties.npsSurveyId is missing'],
      [{ npsSurveyId: foreign.id, score: 5 }, `NPS survey ${foreign.id} not found`],
      [{ npsSurveyId: nps.id, score: 11 }, 'properties.score must be an integer from 0 to 10'],
      [{ npsSurveyId: nps.id, score: 7.5 }, 'properties.score must be an integer from 0 to 10'],
      [{ npsSurveyId: nps.id, score: '7' }, 'properties.score must be an integer from 0 to 10'],
      [{ npsSurveyId: nps.id, score: 7, comment: 42 }, 'properties.comment must be a string'],
    ];
    const ids = invalid.map(() => newId());
    await send([
      ...valid,
      ...invalid.map(([properties], i) => ({ id: ids[i], type: 'NPS_RESPONSE', properties })),
    ]);
    await t.processEvents();
    expect(await deadLetterReasons(ids)).toEqual(invalid.map(([, reason]) => reason));
    const results = await get(`/api/nps-surveys/${nps.id}/results`);
    expect(results.statusCode, results.body).toBe(200);
    expect(results.json().data).toMatchObject({
      totalResponses: 4,
      promoters: 2,
      passives: 1,
      detractors: 1,
      npsScore: 25,
    });
    const list = await get(`/api/nps-surveys/${nps.id}/responses`);
    expect(
      list
        .json()
        .data.map((r: { score: number; comment: string | null }) => [r.score, r.comment])
        .sort(),
    ).toEqual([
      [10, null],
      [3, 'ok'],
      [8, 'ok'],
      [9, 'ok'],
    ]);
  });
});

describe('answer checks', () => {
  const q = (type: string, options: Record<string, unknown> = {}) =>
    ({ key: 'k', type, required: false, options }) as Question;
  it('fit each question type', () => {
    const fits: [string, Record<string, unknown>, unknown][] = [
      ['RATING', {}, 5],
      ['RATING', { min: 0, max: 3 }, 0],
      ['SCALE', {}, 10],
      ['NPS', {}, 0],
      ['BOOLEAN', {}, false],
      ['DROPDOWN', { choices: ['x'] }, 'x'],
      ['TEXT', {}, 'hello'],
      ['MULTIPLE_CHOICE', { choices: ['x', 'y'] }, ['y']],
    ];
    for (const [type, options, value] of fits)
      expect(answerProblem(q(type, options), value), type).toBeNull();
    const misfits: [string, Record<string, unknown>, unknown][] = [
      ['RATING', {}, 6],
      ['RATING', {}, 2.5],
      ['SCALE', { min: 0, max: 3 }, 4],
      ['NPS', {}, -1],
      ['BOOLEAN', {}, 1],
      ['DROPDOWN', { choices: ['x'] }, 'y'],
      ['SINGLE_CHOICE', { choices: ['x'] }, ['x']],
      ['TEXT', {}, 5],
      ['MULTIPLE_CHOICE', { choices: ['x', 'y'] }, 'x'],
      ['MULTIPLE_CHOICE', { choices: ['x', 'y'] }, ['x', 'x']],
    ];
    for (const [type, options, value] of misfits)
      expect(answerProblem(q(type, options), value), type).not.toBeNull();
  });

  it('drop unanswered optional questions and refuse a non-object', () => {
    const survey = { questions: [q('TEXT'), { ...q('NPS'), key: 'n', required: true }] };
    expect(checkAnswers(survey, { k: null, n: 3 })).toEqual({ response: { n: 3 } });
    expect(checkAnswers(survey, [3])).toEqual({
      problem: 'properties.answers must be an object keyed by question key',
    });
    expect(checkAnswers(survey, { k: 'x', n: null })).toEqual({
      problem: 'required question "n" is not answered',
    });
  });

  it('resolve a question key before an order, and ignore an order two questions share', () => {
    const survey = {
      questions: [
        { ...q('TEXT'), key: '1', order: 0 },
        { ...q('BOOLEAN'), key: 'b', order: 1 },
        { ...q('NPS'), key: 'x', order: 2 },
        { ...q('NPS'), key: 'y', order: 2 },
      ],
    };
    expect(checkAnswers(survey, { '1': 'text', '0': 'again' })).toEqual({
      problem: 'question "1" is answered twice (as "0" and "1")',
    });
    expect(checkAnswers(survey, { '1': 'text' })).toEqual({ response: { '1': 'text' } });
    expect(checkAnswers(survey, { '0': 'text', b: true })).toEqual({ response: { '1': 'text', b: true } });
    expect(checkAnswers(survey, { '2': 5 })).toEqual({ problem: 'unknown question key "2"' });
    expect(checkAnswers(survey, { x: 5, y: 6 })).toEqual({ response: { x: 5, y: 6 } });
  });
});
