import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTENT_TYPES } from '../../src/db/schema/index.js';
import { sampleContentBody } from '../../src/modules/content/samples.js';
import type { AuthPolicy } from '../../src/platform/auth/guard.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { testConfig } from '../helpers/config.js';
import { type Actor, createTenant, TEST_SITE_ID, type TenantFixture } from '../helpers/factories.js';
import {
  arbitraryFor,
  hostileBodyText,
  hostileString,
  type JsonSchema,
  RawJson,
  toJsonText,
  withHostile,
} from './schema-arbitraries.js';

/**
 * The fuzzer that keeps issue 17 fixed. Every operation of the served OpenAPI document
 * (`/docs/json`) is called with property-based path parameters, query, headers and body
 * (fast-check, seeded), mostly valid and authenticated (a session of an OWNER, an API key, the
 * platform admin token, as the route's policy needs) so requests reach the handlers, with
 * hostile values mixed in anywhere; then every top-level body field gets each hostile value in
 * turn. Every answer must be below 500 and, from 400 on, the error envelope; afterwards the
 * server must still be healthy.
 *
 * FUZZ_SEED, FUZZ_RUNS (per operation) and FUZZ_BUDGET_MS (whole run) change the defaults; a
 * failure prints the seed and the request that failed, to replay.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/** The random phase stops early past this (the sweep and checks still run): ≤ 2 minutes in all on 2 cores. */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 75_000);
/** An answer slower than this is a hang (issue 17 found one of minutes), even on a loaded machine. */
const ANSWER_TIMEOUT_MS = 30_000;
const ADMIN_TOKEN = 'fuzz-platform-admin-token-0123456789';
/** `FUZZ_TRACE=<text>`: prints each request of the operations whose `METHOD /path` contains it, with its answer. */
const TRACE = process.env.FUZZ_TRACE;

/**
 * Operations allowed to answer a 5xx, with the reason (e.g. a provider the test cannot reach).
 * Keep it empty unless a 5xx is the documented answer.
 */
const EXPECTED_5XX: Record<string, string> = {};

const CATEGORIES = [
  'VALIDATION',
  'AUTH',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMIT',
  'EXTERNAL_SERVICE',
  'INTERNAL',
];

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path (`/api/flows/{id}`). */
  path: string;
  /** Fastify route url (`/api/flows/:id`). */
  route: string;
  policy: AuthPolicy;
  pathParams: string[];
  query: { name: string; schema: JsonSchema; required: boolean }[];
  body: JsonSchema | null;
}

interface FuzzRequest {
  pathParams: Record<string, string>;
  query: string;
  headers: Record<string, string>;
  /** The body text, or none. */
  payload: string | undefined;
}

let t: TestApp;
let tenant: TenantFixture;
let owner: Actor;
let apiKey: string;
/** The local stand-in for every outside service (Google's key set, AI providers). */
let outside: Server;
let document: JsonSchema;
const ids: Record<string, string[]> = {};
const stats = {
  requests: 0,
  byClass: {} as Record<string, number>,
  byStatus: {} as Record<number, number>,
  /** Operations by how many of their random requests got past validation and authentication. */
  reached: {} as Record<string, number>,
};

beforeAll(async () => {
  // Everything the service calls out to answers from here, so nothing leaves the machine: Google
  // sign-in gets a key set with no keys (every token is refused), AI providers refuse every key.
  outside = createServer((req, res) => {
    if (req.url?.endsWith('/certs'))
      return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid api key"}}');
  });
  await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(outside.address() as AddressInfo).port}`;
  t = await createTestApp({
    config: {
      platformAdminToken: ADMIN_TOKEN,
      google: { clientId: 'fuzz-client', jwksUrl: `${local}/certs` },
      ai: {
        ...testConfig().ai,
        openaiBaseUrl: `${local}/openai`,
        anthropicBaseUrl: `${local}/anthropic`,
        geminiBaseUrl: `${local}/gemini`,
      },
    },
  });
  tenant = await createTenant(t);
  owner = tenant.owner;
  apiKey = await createApiKey();
  await createFixtures();
  const doc = await t.inject({ method: 'GET', url: '/docs/json' });
  expect(doc.statusCode).toBe(200);
  document = doc.json();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => outside?.close(resolve));
});

/** Dashboard call as the current owner; fails the setup if it does not succeed. */
async function dashboard(method: Operation['method'], url: string, payload?: unknown) {
  const res = await t.inject({
    method,
    url,
    headers: owner.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json().data;
}

function remember(kind: string, id: string) {
  ids[kind] ??= [];
  ids[kind].push(id);
}

async function createApiKey(): Promise<string> {
  const key = await dashboard('POST', '/api/tenants/api-keys', { name: 'fuzz' });
  remember('tenants/api-keys', key.id);
  return key.key;
}

/** One of each record, so path ids often name something that exists and handlers go deep. */
async function createFixtures() {
  const audience = await dashboard('POST', '/api/audiences', {
    name: 'Pro users',
    ruleTree: { logicalOperator: 'AND', rules: [{ field: 'traits.plan', operator: 'eq', value: 'pro' }] },
  });
  remember('audiences', audience.id);
  const flow = await dashboard('POST', '/api/flows', {
    name: 'Tour',
    siteId: TEST_SITE_ID,
    template: 'PRODUCT_TOUR',
    audienceId: audience.id,
    steps: [
      { type: 'MODAL', content: { title: 'Welcome' } },
      { type: 'TOOLTIP', targetSelector: '#save', content: { title: 'Save' } },
    ],
  });
  remember('flows', flow.id);
  for (const step of flow.steps) remember('steps', step.id);
  await dashboard('POST', `/api/flows/${flow.id}/publish`);
  remember(
    'flows',
    (await dashboard('POST', '/api/flows', { name: 'Draft', siteId: TEST_SITE_ID, template: 'CUSTOM' })).id,
  );
  for (const type of CONTENT_TYPES) {
    remember(
      `content/${type}`,
      (await dashboard('POST', `/api/content/${type}`, sampleContentBody(type, TEST_SITE_ID))).id,
    );
  }
  remember(
    'nps-surveys',
    (
      await dashboard('POST', '/api/nps-surveys', {
        name: 'NPS',
        siteId: TEST_SITE_ID,
        question: 'Recommend us?',
      })
    ).id,
  );
  remember(
    'translations/locales',
    (
      await dashboard('POST', '/api/translations/locales', {
        code: 'en',
        name: 'English',
        isDefault: true,
        isRtl: false,
      })
    ).id,
  );
  remember(
    'translations/locales',
    (
      await dashboard('POST', '/api/translations/locales', {
        code: 'fr',
        name: 'French',
        isDefault: false,
        isRtl: false,
      })
    ).id,
  );
  remember(
    'translations',
    (
      await dashboard('POST', '/api/translations', {
        contentType: 'flow',
        contentId: flow.id,
        fieldName: 'name',
        localeCode: 'fr',
        value: 'Visite',
      })
    ).id,
  );
  remember(
    'tenants/members',
    (await dashboard('POST', '/api/tenants/members', { email: 'fuzz-invitee@example.com', role: 'EDITOR' }))
      .id,
  );
  remember('tenants/members', owner.memberId);
  remember(
    'tenants/invites/links',
    (await dashboard('POST', '/api/tenants/invites/link', { role: 'VIEWER' })).id,
  );
  remember('admin/tenants', tenant.tenantId);
  // the SDK side: an end user, a session, events
  const sdk = (url: string, payload: unknown) =>
    t.inject({ method: 'POST', url, headers: { 'x-api-key': apiKey }, payload: payload as object });
  expect((await sdk('/api/sdk/identify', { userId: 'fuzz-user', traits: { plan: 'pro' } })).statusCode).toBe(
    200,
  );
  expect(
    (await sdk('/api/sdk/session', { userId: 'fuzz-user', url: 'https://app.example.com/' })).statusCode,
  ).toBe(201);
  const events = await sdk('/api/sdk/events', {
    events: [
      { type: 'FLOW_STARTED', userId: 'fuzz-user', properties: { flowId: flow.id } },
      {
        type: 'CLICK',
        userId: 'fuzz-user',
        url: 'https://app.example.com/',
        properties: { x: 1, y: 2, selector: '#a' },
      },
    ],
  });
  expect(events.statusCode).toBe(202);
}

/** The operations of the document, with the route policy the guard registered for each. */
function operationsOf(doc: JsonSchema): Operation[] {
  const policies = new Map(t.app.routePolicies.map((p) => [`${p.method} ${p.url}`, p.policy]));
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, JsonSchema>>)) {
    for (const [method, op] of Object.entries(item)) {
      const upper = method.toUpperCase() as Operation['method'];
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(upper)) continue;
      const route = path.replace(/\{([^}]+)\}/g, ':$1');
      const policy = policies.get(`${upper} ${route}`);
      if (!policy) throw new Error(`${upper} ${path} is documented but has no route policy`);
      const parameters = (op.parameters ?? []) as {
        in: string;
        name: string;
        schema: JsonSchema;
        required?: boolean;
      }[];
      const body = (op.requestBody as JsonSchema | undefined)?.content as
        | Record<string, { schema: JsonSchema }>
        | undefined;
      ops.push({
        method: upper,
        path,
        route,
        policy,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema, required: Boolean(p.required) })),
        body: body?.['application/json']?.schema ?? null,
      });
    }
  }
  // What would end the fixtures or the session runs last (deletes, logout).
  const rank = (op: Operation) =>
    op.path === '/api/auth/logout' ? 3 : op.method === 'DELETE' ? 2 : op.method === 'GET' ? 0 : 1;
  return ops.sort((a, b) => rank(a) - rank(b));
}

/** The ids of records that live under `path` (`/api/content/tooltips/{id}` → the tooltip). */
function idsFor(path: string, param: string): string[] {
  if (param === 'stepId') return ids.steps ?? [];
  if (param === 'flowId') return ids.flows ?? [];
  const rest = path.replace(/^\/api\//, '');
  const kinds = Object.keys(ids)
    .filter((k) => rest.startsWith(`${k}/`))
    .sort((a, b) => b.length - a.length);
  return kinds.length ? ids[kinds[0]!]! : Object.values(ids).flat();
}

/** Path segments no route expects, already percent-encoded (or deliberately not). */
const hostileSegment = fc.oneof(
  fc.constantFrom(
    '%ff',
    '%ED%A0%80',
    '%00',
    '%',
    '..',
    '%2e%2e',
    '%2F',
    'null',
    'undefined',
    '-1',
    '0',
    '1e999',
    '__proto__',
  ),
  fc.constantFrom(200, 5_000, 20_000).map((n) => 'a'.repeat(n)),
  hostileString.map((s) => {
    try {
      return encodeURIComponent(s) || 'empty';
    } catch {
      return '%ED%B0%80';
    }
  }),
);

/** A query value as text: a lone surrogate cannot be percent-encoded, so it goes as its (invalid) UTF-8 bytes. */
function queryText(value: unknown): string {
  const text =
    value instanceof RawJson ? value.text : typeof value === 'string' ? value : JSON.stringify(value);
  try {
    return encodeURIComponent(text ?? '');
  } catch {
    return '%ED%A0%80';
  }
}

const hostileQuery = fc.constantFrom(
  'page=1&page=2',
  'limit=1e3',
  'page=9007199254740993',
  'x=%ff',
  'x=%ED%A0%80',
  'x=%00',
  '__proto__[polluted]=1',
  'constructor[prototype][polluted]=1',
  `x=${'a'.repeat(10_000)}`,
  'startDate=0000-01-01&endDate=9999-12-31',
  '&&&==',
);

const CONTENT_TYPES_SENT = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
  'application/json;;;',
];

function authHeaders(policy: AuthPolicy): Record<string, string> {
  switch (policy.kind) {
    case 'session':
      return owner.headers;
    case 'apiKey':
      return { 'x-api-key': apiKey };
    case 'platformAdmin':
      return { authorization: `Bearer ${ADMIN_TOKEN}` };
    default:
      return {};
  }
}

const brokenAuth = fc.constantFrom<Record<string, string>>(
  {},
  { authorization: 'Bearer not-a-jwt' },
  { authorization: `Bearer ${'e'.repeat(5_000)}` },
  { authorization: 'Basic dXNlcjpwYXNz' },
  { 'x-api-key': `wfx_${'0'.repeat(64)}` },
  { 'x-api-key': 'wfx_short' },
  { cookie: 'session_token=%ff; refresh_token=x.y' },
);

/** Headers anyone may send, printable ASCII (what HTTP carries). */
const extraHeaders = fc.record(
  {
    'x-request-id': fc.oneof(fc.string({ maxLength: 40 }), fc.constant('r'.repeat(8_000))),
    'x-correlation-id': fc.string({ maxLength: 40 }),
    'if-none-match': fc.constantFrom('*', '"abc"', 'W/"x", "y"', ''),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', ''),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', 'not-an-ip', '::1, 10.0.0.1'),
    expect: fc.constantFrom('100-continue'),
  },
  { requiredKeys: [] },
);

/** Property-based requests for one operation. */
function requestsFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const ctx = { document, depth: 0 };
  const pathParams = fc.record(
    Object.fromEntries(
      op.pathParams.map((name) => {
        const known = idsFor(op.path, name);
        const choices: fc.WeightedArbitrary<string>[] = [
          { weight: 2, arbitrary: fc.uuid() },
          { weight: 2, arbitrary: hostileSegment },
        ];
        if (known.length) choices.push({ weight: 6, arbitrary: fc.constantFrom(...known) });
        if (name === 'type') choices.push({ weight: 6, arbitrary: fc.constantFrom(...CONTENT_TYPES) });
        return [name, fc.oneof(...choices)];
      }),
    ),
  );
  const query = fc
    .tuple(
      fc.record(Object.fromEntries(op.query.map((q) => [q.name, withHostile(arbitraryFor(q.schema, ctx))])), {
        requiredKeys: [],
      }),
      fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostileQuery }),
    )
    .map(([values, extra]) => {
      const parts = Object.entries(values)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${encodeURIComponent(k)}=${queryText(v)}`);
      if (extra) parts.push(extra);
      return parts.join('&');
    });
  const body: fc.Arbitrary<string | undefined> = op.body
    ? fc.oneof(
        { weight: 16, arbitrary: withHostile(arbitraryFor(op.body, ctx)).map(toJsonText) },
        { weight: 2, arbitrary: hostileBodyText },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileBodyText });
  const headers = fc
    .tuple(
      fc.oneof(
        { weight: 14, arbitrary: fc.constant(authHeaders(op.policy)) },
        { weight: 1, arbitrary: brokenAuth },
      ),
      fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES_SENT) },
      ),
      extraHeaders,
    )
    .map(([auth, contentType, extra]) => ({ ...extra, ...auth, 'content-type': contentType }));
  return fc.record({ pathParams, query, headers, payload: body }).map((r) => ({
    ...r,
    headers: r.payload === undefined ? withoutContentType(r.headers) : r.headers,
  }));
}

const withoutContentType = (headers: Record<string, string>) => {
  const { 'content-type': _, ...rest } = headers;
  return rest;
};

function urlOf(op: Operation, req: FuzzRequest): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => req.pathParams[name] ?? 'x');
  return req.query ? `${path}?${req.query}` : path;
}

async function send(
  op: Operation,
  req: FuzzRequest,
  phase: 'random' | 'sweep' = 'random',
): Promise<LightMyRequestResponse> {
  const options: InjectOptions = { method: op.method, url: urlOf(op, req), headers: req.headers };
  if (req.payload !== undefined) options.payload = req.payload;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)),
      ANSWER_TIMEOUT_MS,
    );
  });
  try {
    const res = await Promise.race([t.inject(options), timeout]);
    stats.requests++;
    const cls = `${Math.floor(res.statusCode / 100)}xx`;
    stats.byClass[cls] = (stats.byClass[cls] ?? 0) + 1;
    stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
    const key = `${op.method} ${op.path}`;
    if (TRACE && key.includes(TRACE)) {
      console.log(
        `${options.method} ${String(options.url).slice(0, 200)} ${String(req.payload).slice(0, 300)}\n  → ${res.statusCode} ${res.body.slice(0, 300)}`,
      );
    }
    if (phase === 'random') stats.reached[key] = (stats.reached[key] ?? 0) + (reachedHandler(res) ? 1 : 0);
    return res;
  } finally {
    clearTimeout(timer);
  }
}

/** Refusals before the handler: the request never reached the service's own code. */
const REFUSED_BEFORE = new Set([
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'AUTH_NO_TOKEN',
  'AUTH_INVALID_TOKEN',
  'AUTH_FAILED',
]);
function reachedHandler(res: LightMyRequestResponse): boolean {
  if (res.statusCode < 400) return true;
  try {
    return !REFUSED_BEFORE.has(res.json().error.code);
  } catch {
    return false;
  }
}

/** What is wrong with an answer, or null. */
function problemOf(op: Operation, res: LightMyRequestResponse): string | null {
  const key = `${op.method} ${op.path}`;
  if (res.statusCode >= 500 && !EXPECTED_5XX[key])
    return `answered ${res.statusCode}: ${res.body.slice(0, 500)}`;
  if (res.statusCode < 400) return null;
  let body: { error?: Record<string, unknown> };
  try {
    body = res.json();
  } catch {
    return `${res.statusCode} without a JSON body: ${JSON.stringify(res.body.slice(0, 200))}`;
  }
  const e = body?.error;
  if (!e || typeof e !== 'object') return `${res.statusCode} without the envelope: ${res.body.slice(0, 300)}`;
  if (e.statusCode !== res.statusCode)
    return `envelope statusCode ${String(e.statusCode)} on a ${res.statusCode}`;
  if (typeof e.code !== 'string' || !/^[A-Z_]+$/.test(e.code)) return `envelope code ${String(e.code)}`;
  if (typeof e.message !== 'string') return 'envelope without a message';
  if (!CATEGORIES.includes(e.category as string)) return `envelope category ${String(e.category)}`;
  if (e.code === 'VALIDATION_ERROR') {
    const details = e.details as { path?: unknown; message?: unknown }[] | undefined;
    if (!Array.isArray(details) || !details.length) return 'VALIDATION_ERROR without details';
    for (const d of details) {
      if (typeof d.path !== 'string' || !d.path || typeof d.message !== 'string')
        return `VALIDATION_ERROR detail ${JSON.stringify(d)}`;
    }
  }
  return null;
}

/** Brings back what an operation may have ended: the owner's session and role, the API key, the plan. */
async function restoreBaseline() {
  const me = await t.inject({ method: 'GET', url: '/api/auth/me', headers: owner.headers });
  if (me.statusCode !== 200 || me.json().data.role !== 'OWNER') owner = await tenant.as('OWNER');
  const config = await t.inject({ method: 'GET', url: '/api/sdk/config', headers: { 'x-api-key': apiKey } });
  if (config.statusCode !== 200) apiKey = await createApiKey();
  const current = await t.inject({ method: 'GET', url: '/api/pricing/current', headers: owner.headers });
  if (current.json().data?.plan !== 'enterprise') {
    const res = await t.inject({
      method: 'PUT',
      url: `/api/admin/tenants/${tenant.tenantId}/subscription`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { plan: 'enterprise' },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}

/** Each top-level body field with each hostile value, in turn (deterministic, on top of the random phase). */
const SWEEP_VALUES: unknown[] = [
  new RawJson(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`),
  new RawJson(`${'['.repeat(10_000)}${']'.repeat(10_000)}`),
  '\ud800',
  'a\u0000b',
  new RawJson('1e999'),
  2 ** 31,
  -(2 ** 53) - 2,
  JSON.parse('{"__proto__":{"polluted":true}}'),
  'x'.repeat(100_000),
  null,
  [],
];

function sweepBodies(op: Operation): string[] {
  const schema = op.body;
  if (!schema) return [];
  const base = fc.sample(arbitraryFor(schema, { document, depth: 0 }), { seed: SEED, numRuns: 1 })[0];
  const fields = Object.keys((schema.properties ?? {}) as object);
  const bodies: string[] = [];
  for (const field of fields) {
    for (const value of SWEEP_VALUES) {
      const body = { ...(base && typeof base === 'object' ? base : {}), [field]: value };
      bodies.push(toJsonText(body));
    }
  }
  return bodies;
}

it('answers every operation of the OpenAPI document below 500, in the envelope from 400 on, and stays healthy', async () => {
  const operations = operationsOf(document);
  // every route with a policy is in the document, so every route is fuzzed
  const documented = new Set(operations.map((o) => `${o.method} ${o.route}`));
  const undocumented = t.app.routePolicies
    .map((p) => `${p.method} ${p.url}`)
    .filter((r) => !documented.has(r));
  expect(undocumented).toEqual([]);

  const started = Date.now();
  const failures: string[] = [];
  const perOperationMs = BUDGET_MS / operations.length;
  for (const op of operations) {
    const result = await fc.check(
      fc.asyncProperty(requestsFor(op), async (req) => {
        const problem = problemOf(op, await send(op, req));
        if (problem) throw new Error(problem);
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: perOperationMs, markInterruptAsFailure: false },
    );
    if (result.failed) {
      const req = result.counterexample?.[0] as FuzzRequest | undefined;
      failures.push(
        `${op.method} ${op.path}: ${(result.errorInstance as Error | undefined)?.message}\n` +
          `  request: ${op.method} ${req ? urlOf(op, req).slice(0, 300) : '?'} ` +
          `headers ${JSON.stringify(req?.headers ?? {}).slice(0, 300)} body ${String(JSON.stringify(req?.payload?.slice(0, 300)))}\n` +
          `  replay: FUZZ_SEED=${SEED} (path ${result.counterexamplePath})`,
      );
    }
    for (const payload of sweepBodies(op)) {
      const pathParams = Object.fromEntries(op.pathParams.map((p) => [p, idsFor(op.path, p)[0] ?? 'x']));
      const req: FuzzRequest = {
        pathParams,
        query: '',
        headers: { ...authHeaders(op.policy), 'content-type': 'application/json' },
        payload,
      };
      const problem = problemOf(op, await send(op, req, 'sweep'));
      if (problem)
        failures.push(`${op.method} ${op.path} (sweep): ${problem}\n  body ${payload.slice(0, 200)}`);
    }
    await restoreBaseline();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `fuzz: ${stats.requests} requests over ${operations.length} operations in ${seconds} s (seed ${SEED}, ` +
      `${RUNS} random runs each): ${JSON.stringify(stats.byClass)}; statuses ${JSON.stringify(stats.byStatus)}`,
  );
  const neverReached = Object.entries(stats.reached)
    .filter(([, n]) => n === 0)
    .map(([k]) => k);
  const reached = Object.values(stats.reached).reduce((a, b) => a + b, 0);
  console.log(
    `fuzz: ${reached} random requests got past validation and authentication; operations none of whose did: ${neverReached.join(', ') || 'none'}`,
  );
  expect(failures, failures.join('\n')).toEqual([]);

  // still healthy: the health check, a fresh sign-in, an SDK call, a write
  const health = await t.inject({ method: 'GET', url: '/api/health' });
  expect(health.statusCode).toBe(200);
  expect(health.json().data.status).toBe('ok');
  const fresh = await tenant.as('OWNER');
  expect((await t.inject({ method: 'GET', url: '/api/auth/me', headers: fresh.headers })).statusCode).toBe(
    200,
  );
  const write = await t.inject({
    method: 'POST',
    url: '/api/flows',
    headers: fresh.headers,
    payload: { name: 'After the fuzz', siteId: TEST_SITE_ID, template: 'CUSTOM' },
  });
  expect(write.statusCode, write.body).toBe(201);
  const key = await createApiKey();
  expect(
    (await t.inject({ method: 'GET', url: '/api/sdk/config', headers: { 'x-api-key': key } })).statusCode,
  ).toBe(200);
  // no prototype was polluted by any body
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}, 240_000);
