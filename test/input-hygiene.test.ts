import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/platform/http/json-body.js';
import { INT32_MAX } from '../src/platform/http/schemas.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { createTenant, TEST_SITE_ID, type TenantFixture } from './helpers/factories.js';
import { apiKeyOf } from './helpers/sdk.js';

/**
 * Values that once answered 500 (issue 17) answer 400 VALIDATION_ERROR naming the field, on the
 * real routes: deep JSON, lone surrogates and NUL in any JSON field, numbers and dates beyond
 * what the database holds. JSON bodies are sent as text, so the hostile escapes reach the server
 * exactly as written.
 */

let t: TestApp;
let acme: TenantFixture;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  key = await apiKeyOf(t, acme);
});
afterAll(() => t.close());

const send = (method: 'POST' | 'PATCH' | 'PUT', url: string, json: string, headers = acme.owner.headers) =>
  t.inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: json });

/** The single issue's path of a 400 VALIDATION_ERROR. */
function invalidAt(res: Awaited<ReturnType<typeof send>>): string {
  const error = expectError(res, 400, 'VALIDATION_ERROR');
  const details = error.details as { path: string; message: string }[];
  expect(details.length, res.body).toBeGreaterThan(0);
  return details[0]!.path;
}

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const flowJson = (extra: string) => `{"name":"F","siteId":"${TEST_SITE_ID}","template":"CUSTOM"${extra}}`;

/** JSON-object fields of several routes, each as `(value) => [method, url, body, headers]`. */
const objectFields: [string, (v: string) => Parameters<typeof send>, string][] = [
  ['flow settings', (v) => ['POST', '/api/flows', flowJson(`,"settings":${v}`)], 'settings'],
  [
    'step content',
    (v) => ['POST', '/api/flows', flowJson(`,"steps":[{"type":"MODAL","content":${v}}]`)],
    'steps.0.content',
  ],
  ['tenant settings', (v) => ['PATCH', '/api/tenants/current', `{"settings":${v}}`], 'settings'],
  [
    'identify traits',
    (v) => ['POST', '/api/sdk/identify', `{"userId":"u-1","traits":${v}}`, { 'x-api-key': key }],
    'traits',
  ],
  [
    'evaluate traits',
    (v) => ['POST', '/api/audiences/00000000-0000-7000-8000-000000000000/evaluate', `{"traits":${v}}`],
    'traits',
  ],
  [
    'event properties',
    (v) => [
      'POST',
      '/api/sdk/events',
      `{"events":[{"type":"CLICK","properties":${v}}]}`,
      { 'x-api-key': key },
    ],
    'events.0.properties',
  ],
];

describe('deep JSON', () => {
  it.each(objectFields)('%s: 10,000 levels → 400 naming the field', async (_name, request, field) => {
    const path = invalidAt(await send(...request(nested(10_000))));
    expect(path.startsWith(`${field}.a.a`), path).toBe(true);
    expect(path.split('.')).toHaveLength(MAX_JSON_DEPTH);
  });

  it('accepts the deepest allowed nesting and stores it', async () => {
    // the body is level 1 and settings level 2: settings may nest 63 levels
    const res = await send('POST', '/api/flows', flowJson(`,"settings":${nested(MAX_JSON_DEPTH - 1)}`));
    expect(res.statusCode, res.body).toBe(201);
    let depth = 0;
    for (let v = res.json().data.settings; typeof v === 'object'; v = v.a) depth++;
    expect(depth).toBe(MAX_JSON_DEPTH - 1);
  });
});

describe('lone UTF-16 surrogates and NUL: one rule for every field', () => {
  it.each(objectFields)('%s: a lone surrogate inside → 400 naming it', async (_name, request, field) => {
    expect(invalidAt(await send(...request('{"x":{"y":"a\\ud800b"}}')))).toBe(`${field}.x.y`);
    expect(invalidAt(await send(...request('{"x":["\\udfff"]}')))).toBe(`${field}.x.0`);
    expect(invalidAt(await send(...request('{"x":"nul\\u0000"}')))).toBe(`${field}.x`);
  });

  it('names plain string fields too, and never stores a replacement character', async () => {
    expect(invalidAt(await send('POST', '/api/flows', flowJson(',"description":"\\ud83d"')))).toBe(
      'description',
    );
    expect(
      invalidAt(await send('POST', '/api/audiences', '{"name":"\\udc00","ruleTree":{"rules":[]}}')),
    ).toBe('name');
    // a surrogate pair, escaped or not, is a character like any other
    const ok = await send(
      'POST',
      '/api/flows',
      '{"name":"\\ud83d\\ude00 😀","siteId":"' + TEST_SITE_ID + '","template":"CUSTOM"}',
    );
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().data.name).toBe('😀 😀');
  });

  it('cannot arrive through the query or the path: percent-escapes are UTF-8, and undecodable ones are kept or refused', async () => {
    // %ED%A0%80 is a surrogate encoded as UTF-8 (invalid): kept as sent in the query
    const list = await t.inject({
      method: 'GET',
      url: '/api/flows?search=%ED%A0%80',
      headers: acme.owner.headers,
    });
    expect(list.statusCode).toBe(200);
    expectError(
      await t.inject({ method: 'GET', url: '/api/flows/%ED%A0%80', headers: acme.owner.headers }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('prototype keys', () => {
  it('are refused naming their place, anywhere in the body', async () => {
    expect(
      invalidAt(await send('POST', '/api/flows', flowJson(',"settings":{"a":{"__proto__":{"x":1}}}'))),
    ).toBe('settings.a.__proto__');
    expect(
      invalidAt(await send('PATCH', '/api/tenants/current', '{"settings":{"constructor":{"prototype":{}}}}')),
    ).toBe('settings.constructor.prototype');
    expect(invalidAt(await send('POST', '/api/flows', '{"__proto__":{"isAdmin":true}}'))).toBe('__proto__');
    // a key merely named constructor is data
    const ok = await send('PATCH', '/api/tenants/current', '{"settings":{"constructor":"fine"}}');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });
});

describe('numbers and dates beyond what the database holds', () => {
  it('overview and per-flow analytics: year-0000 and year-10000 bounds → 400 at the query field', async () => {
    for (const q of [
      'startDate=0000-01-01',
      'startDate=0000-01-01T00:00:00Z',
      'startDate=1969-12-31',
      'endDate=9999-12-31T23:00:00-05:00',
    ]) {
      const field = q.split('=')[0];
      for (const url of ['/api/analytics/overview', `/api/analytics/flows/${TEST_SITE_ID}`]) {
        const res = await t.inject({ method: 'GET', url: `${url}?${q}`, headers: acme.owner.headers });
        expect(invalidAt(res), `${url}?${q}`).toBe(`query.${field}`);
      }
    }
    const edge = await t.inject({
      method: 'GET',
      url: '/api/analytics/overview?startDate=1970-01-01&endDate=9999-12-31',
      headers: acme.owner.headers,
    });
    expect(edge.statusCode, edge.body).toBe(200);
  });

  it('audit-log, heatmap and NPS result dates are bounded the same way', async () => {
    const get = (url: string) => t.inject({ method: 'GET', url, headers: acme.owner.headers });
    expect(invalidAt(await get('/api/tenants/audit-logs?startDate=0000-01-01'))).toBe('query.startDate');
    expect(invalidAt(await get('/api/analytics/heatmaps?url=https://x.io&endDate=0000-12-31'))).toBe(
      'query.endDate',
    );
    const nps = await send(
      'POST',
      '/api/nps-surveys',
      `{"name":"N","siteId":"${TEST_SITE_ID}","question":"Q?"}`,
    );
    expect(nps.statusCode, nps.body).toBe(201);
    expect(invalidAt(await get(`/api/nps-surveys/${nps.json().data.id}/results?startDate=0000-01-01`))).toBe(
      'query.startDate',
    );
  });

  it('a translation version beyond an integer column → 400 at version; the largest one is a plain conflict', async () => {
    const locale = await send(
      'POST',
      '/api/translations/locales',
      '{"code":"en","name":"English","isDefault":true,"isRtl":false}',
    );
    expect(locale.statusCode, locale.body).toBe(201);
    const body = (version: number | string) =>
      `{"contentType":"flow","contentId":"x","fieldName":"title","localeCode":"en","value":"v","version":${version}}`;
    expect(invalidAt(await send('POST', '/api/translations', body(INT32_MAX + 1)))).toBe('version');
    expect(invalidAt(await send('POST', '/api/translations', body('1e400')))).toBe('version');
    expectError(await send('POST', '/api/translations', body(INT32_MAX)), 409, 'VERSION_CONFLICT');
  });

  it('step orders, question bounds and trigger delays fit an integer', async () => {
    const flow = (await send('POST', '/api/flows', flowJson(''))).json().data;
    const step = (order: number) => `{"type":"MODAL","order":${order}}`;
    expect(invalidAt(await send('POST', `/api/flows/${flow.id}/steps`, step(INT32_MAX + 1)))).toBe('order');
    expect((await send('POST', `/api/flows/${flow.id}/steps`, step(INT32_MAX))).statusCode).toBe(201);
    const tooltip = (delay: number) =>
      `{"name":"T","siteId":"${TEST_SITE_ID}","targetSelector":"#a","content":{"text":"t"},"triggerConfig":{"type":"time_on_page","delay":${delay}}}`;
    expect(invalidAt(await send('POST', '/api/content/tooltips', tooltip(2 ** 31)))).toBe(
      'triggerConfig.delay',
    );
    expect((await send('POST', '/api/content/tooltips', tooltip(2 ** 31 - 1))).statusCode).toBe(201);
    const survey = `{"name":"S","siteId":"${TEST_SITE_ID}","questions":[{"type":"SCALE","question":"Q","options":{"min":0,"max":${2 ** 53}}}]}`;
    expect(invalidAt(await send('POST', '/api/content/surveys', survey))).toBe('questions.0.options.max');
  });
});
