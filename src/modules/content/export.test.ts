import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { type ExportLine, parseCsv, parseNdjson } from '../../../test/helpers/export-bodies.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, sdkCall } from '../../../test/helpers/sdk.js';
import { surveyResponses } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let viewer: Record<string, string>;
let surveys: string[];
let key: string;

const SITE = '0190a000-0000-7000-8000-000000000001';
const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
const RESPONSES = 1_205;
const URL = '/api/content/surveys/responses/export';

type Line = ExportLine;
const lines = (body: string) => parseNdjson(body);

const get = (url: string, headers: Record<string, string> = viewer) =>
  t.inject({ method: 'GET', url, headers });

async function exportAll(query = '', headers = viewer): Promise<Line[]> {
  const res = await get(`${URL}${query}`, headers);
  expect(res.statusCode, res.body).toBe(200);
  return lines(res.body);
}

async function createSurvey(tenant: TenantFixture) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/content/surveys',
    headers: tenant.owner.headers,
    payload: {
      name: 'Feedback',
      siteId: SITE,
      questions: [{ key: 'why', type: 'TEXT', question: 'Why?' }],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
  viewer = (await acme.as('VIEWER')).headers;
  surveys = [await createSurvey(acme), await createSurvey(acme)];
  const theirs = await createSurvey(other);
  const rows = Array.from({ length: RESPONSES }, (_, i) => ({
    id: newId(),
    tenantId: acme.tenantId,
    surveyId: surveys[i % 2]!,
    response: { why: i === 3 ? 'fast, "really"\nfast' : `answer ${i}` },
    submittedAt: new Date(T0 - i * 1000),
    createdAt: new Date(T0 + Math.floor(i / 100) * 1000),
  }));
  for (let k = 0; k < rows.length; k += 500)
    await t.deps.database.db.insert(surveyResponses).values(rows.slice(k, k + 500));
  await t.deps.database.db
    .insert(surveyResponses)
    .values({ id: newId(), tenantId: other.tenantId, surveyId: theirs, response: { why: 'theirs' } });
  key = await apiKeyOf(t, acme);
  // One response the real way: an SDK event, processed.
  const sent = await sdkCall(t, key)('POST', '/api/sdk/events', {
    events: [
      {
        type: 'SURVEY_RESPONSE',
        userId: 'u-1',
        properties: { surveyId: surveys[0], answers: { why: 'sdk' } },
      },
    ],
  });
  expect(sent.statusCode, sent.body).toBe(202);
  await t.processEvents();
});

afterAll(async () => {
  await t?.close();
});

describe('GET /api/content/surveys/responses/export', () => {
  it("streams the tenant's responses in stored order, never another tenant's", async () => {
    const all = await exportAll();
    expect(all).toHaveLength(RESPONSES + 1);
    const created = all.map((l) => l.createdAt as string);
    expect([...created].sort()).toEqual(created);
    expect(all.at(-1)).toMatchObject({
      surveyId: surveys[0],
      response: { why: 'sdk' },
      endUserId: expect.any(String),
    });
    expect(all.some((l) => (l.response as { why: string }).why === 'theirs')).toBe(false);
    expect((await exportAll('', other.owner.headers)).map((l) => l.response)).toEqual([{ why: 'theirs' }]);
  });

  it('filters by survey and by stored time', async () => {
    const one = await exportAll(`?surveyId=${surveys[1]}`);
    expect(one).toHaveLength(Math.floor(RESPONSES / 2));
    expect(one.every((l) => l.surveyId === surveys[1])).toBe(true);
    const window = await exportAll(
      `?from=${new Date(T0 + 1000).toISOString()}&to=${new Date(T0 + 2999).toISOString()}`,
    );
    expect(window).toHaveLength(200);
    expect(await exportAll(`?surveyId=${newId()}`)).toHaveLength(0);
  });

  it('resumes after any row with exactly the rest (equal times, page boundary, filtered)', async () => {
    const all = await exportAll();
    for (const k of [0, 99, 100, 999, 1000, RESPONSES - 1, RESPONSES]) {
      const rest = await exportAll(`?cursor=${encodeURIComponent(all[k]!.cursor)}`);
      expect(
        rest.map((l) => l.id),
        `after row ${k}`,
      ).toEqual(all.slice(k + 1).map((l) => l.id));
    }
    const one = await exportAll(`?surveyId=${surveys[0]}`);
    const rest = await exportAll(`?surveyId=${surveys[0]}&cursor=${encodeURIComponent(one[550]!.cursor)}`);
    expect(rest.map((l) => l.id)).toEqual(one.slice(551).map((l) => l.id));
  });

  it('writes CSV with quoting; gzip decompresses to the same bytes', async () => {
    const res = await get(`${URL}?format=csv`);
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual(['id', 'surveyId', 'endUserId', 'response', 'submittedAt', 'createdAt', 'cursor']);
    expect(rows).toHaveLength(RESPONSES + 1);
    expect(rows.map((r) => JSON.parse(r[3]!).why)).toContain('fast, "really"\nfast');
    const zipped = await get(`${URL}?format=csv`, { ...viewer, 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(res.body);
  });

  it('400 naming the field; 401 without a session', async () => {
    const [first] = await exportAll();
    const endUsersCursor = first!.cursor; // a cursor of this export, sent to another
    expect(
      (await get(`/api/end-users/export?cursor=${encodeURIComponent(endUsersCursor)}`, acme.owner.headers))
        .statusCode,
    ).toBe(400);
    for (const [query, field] of [
      ['surveyId=nope', 'surveyId'],
      ['to=tomorrow', 'to'],
      ['format=tsv', 'format'],
      ['cursor=Zm9v.YmFy', 'cursor'],
    ] as const) {
      const err = expectError(await get(`${URL}?${query}`), 400, 'VALIDATION_ERROR');
      expect(err.details, query).toEqual([expect.objectContaining({ path: `query.${field}` })]);
    }
    expectError(await get(URL, {}), 401, 'AUTH_NO_TOKEN');
  });
});
