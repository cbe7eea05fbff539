import { eq } from 'drizzle-orm';
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
import { auditLogs } from '../../db/schema/index.js';

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

const auditActions = async (entityId: string) =>
  (
    await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.entityId, entityId))
      .orderBy(auditLogs.createdAt, auditLogs.id)
  ).map((r) => r.action);

describe('POST /api/flows', () => {
  it('creates a draft with inline steps in array order and answers the full flow', async () => {
    const audienceId = await insertAudience(t, acme.tenantId);
    const res = await callAs(t, acme, 'POST', '/api/flows', {
      name: '  Welcome  ',
      description: 'First run',
      siteId: SITE,
      template: 'FEATURE_WALKTHROUGH',
      settings: { theme: 'dark' },
      trigger: { type: 'URL_MATCH', config: { pattern: '/dashboard' } },
      audienceId,
      scheduledAt: '2030-01-01T00:00:00.000Z',
      expiresAt: '2030-02-01T00:00:00.000Z',
      steps: [
        { type: 'MODAL', content: { title: 'Hi' }, order: 5 },
        {
          type: 'TOOLTIP',
          targetSelector: '#save',
          content: { title: 'Save' },
          settings: { placement: 'top' },
        },
      ],
      unknownField: 'stripped',
    });
    expect(res.statusCode, res.body).toBe(201);
    const flow = res.json().data;
    expect(flow).toMatchObject({
      id: expect.any(String),
      name: 'Welcome',
      description: 'First run',
      template: 'FEATURE_WALKTHROUGH',
      status: 'DRAFT',
      tenantId: acme.tenantId,
      siteId: SITE,
      audienceId,
      settings: { theme: 'dark' },
      trigger: { type: 'URL_MATCH', config: { matchType: 'contains', pattern: '/dashboard' } },
      scheduledAt: '2030-01-01T00:00:00.000Z',
      expiresAt: '2030-02-01T00:00:00.000Z',
      publishedAt: null,
      archivedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(flow.unknownField).toBeUndefined();
    expect(flow.steps).toHaveLength(2);
    expect(flow.steps[0]).toEqual({
      id: expect.any(String),
      flowId: flow.id,
      tenantId: acme.tenantId,
      type: 'MODAL',
      order: 0,
      targetSelector: null,
      targetFingerprint: null,
      content: { title: 'Hi' },
      settings: {},
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(flow.steps[1]).toMatchObject({ type: 'TOOLTIP', order: 1, targetSelector: '#save' });

    const got = await callAs(t, acme, 'GET', `/api/flows/${flow.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(flow);
    expect(await auditActions(flow.id)).toEqual(['FLOW_CREATED']);
  });

  it('applies defaults for a minimal flow', async () => {
    const flow = await createFlow(t, acme, { trigger: { type: 'MANUAL' } });
    expect(flow).toMatchObject({
      description: null,
      audienceId: null,
      settings: {},
      trigger: { type: 'MANUAL', config: {} },
      scheduledAt: null,
      expiresAt: null,
      steps: [],
    });
  });

  it('validates fields with exact paths', async () => {
    const base = { name: 'x', siteId: SITE, template: 'CUSTOM' };
    const cases: [Record<string, unknown>, string][] = [
      [{ siteId: SITE, template: 'CUSTOM' }, 'name'],
      [{ ...base, name: '' }, 'name'],
      [{ ...base, name: 'x'.repeat(256) }, 'name'],
      [{ ...base, siteId: 'site-1' }, 'siteId'],
      [{ name: 'x', template: 'CUSTOM' }, 'siteId'],
      [{ ...base, template: 'TOUR' }, 'template'],
      [{ name: 'x', siteId: SITE }, 'template'],
      [{ ...base, settings: 'dark' }, 'settings'],
      [{ ...base, audienceId: 'aud' }, 'audienceId'],
      [{ ...base, scheduledAt: 'tomorrow' }, 'scheduledAt'],
      [{ ...base, steps: [{ type: 'MODAL' }, { type: 'POPUP' }] }, 'steps.1.type'],
      [{ ...base, steps: [{ type: 'MODAL', targetSelector: 'x'.repeat(1001) }] }, 'steps.0.targetSelector'],
      [{ ...base, steps: [{ type: 'MODAL', content: [] }] }, 'steps.0.content'],
      [{ ...base, steps: {} }, 'steps'],
      [{ ...base, scheduledAt: '2030-01-02T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z' }, 'expiresAt'],
      [{ ...base, scheduledAt: '2030-01-01T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z' }, 'expiresAt'],
    ];
    for (const [payload, path] of cases) {
      const err = expectError(await callAs(t, acme, 'POST', '/api/flows', payload), 400, 'VALIDATION_ERROR');
      expect(err.details, JSON.stringify(payload).slice(0, 200)).toContainEqual({
        path,
        message: expect.any(String),
      });
    }
  });

  it('validates the trigger: type, matchType, pattern and catastrophic regexes', async () => {
    const base = { name: 'x', siteId: SITE, template: 'CUSTOM' };
    const cases: [unknown, string][] = [
      [{ type: 'URL_MATCH', config: { matchType: 'fuzzy', pattern: '/a' } }, 'trigger.config.matchType'],
      [{ type: 'URL_MATCH', config: { pattern: '' } }, 'trigger.config.pattern'],
      [{ type: 'URL_MATCH', config: { pattern: 'x'.repeat(2049) } }, 'trigger.config.pattern'],
      [{ type: 'URL_MATCH', config: { matchType: 'regex', pattern: '(a+)+$' } }, 'trigger.config.pattern'],
      [
        { type: 'URL_MATCH', config: { matchType: 'regex', pattern: '([a-z]*)*x' } },
        'trigger.config.pattern',
      ],
      [{ type: 'URL_MATCH', config: { matchType: 'regex', pattern: '(unclosed' } }, 'trigger.config.pattern'],
      [{ type: 'URL_MATCH' }, 'trigger.config'],
      [{ type: 'MANUAL', config: 'x' }, 'trigger.config'],
    ];
    for (const [trigger, path] of cases) {
      const err = expectError(
        await callAs(t, acme, 'POST', '/api/flows', { ...base, trigger }),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details, JSON.stringify(trigger).slice(0, 100)).toContainEqual({
        path,
        message: expect.any(String),
      });
    }
    const badType = expectError(
      await callAs(t, acme, 'POST', '/api/flows', { ...base, trigger: { type: 'ON_LOAD', config: {} } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(badType.details).toContainEqual({ path: 'trigger.type', message: expect.any(String) });
    const arrayTrigger = expectError(
      await callAs(t, acme, 'POST', '/api/flows', { ...base, trigger: [{ type: 'MANUAL' }] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(arrayTrigger.details)).toContain('trigger');

    for (const config of [
      { matchType: 'regex', pattern: '^/app/(settings|billing)/[0-9]+$' },
      { matchType: 'glob', pattern: '/app/**' },
      { matchType: 'equals', pattern: 'https://example.com/' },
      { matchType: 'starts_with', pattern: '/app' },
      { matchType: 'ends_with', pattern: '.html' },
      { matchType: 'contains', pattern: 'x'.repeat(2048) },
    ]) {
      const flow = await createFlow(t, acme, { trigger: { type: 'URL_MATCH', config } });
      expect(flow.trigger).toEqual({ type: 'URL_MATCH', config });
    }
  });

  it('refuses an audienceId of another tenant, an unknown one or a deleted one (400 at audienceId)', async () => {
    for (const audienceId of [
      await insertAudience(t, other.tenantId),
      UNKNOWN,
      await insertAudience(t, acme.tenantId, { deleted: true }),
    ]) {
      const err = expectError(
        await callAs(t, acme, 'POST', '/api/flows', {
          name: 'x',
          siteId: SITE,
          template: 'CUSTOM',
          audienceId,
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([{ path: 'audienceId', message: expect.any(String) }]);
    }
  });
});

describe('GET /api/flows', () => {
  it('lists with meta, _count.steps, newest first, archived hidden by default', async () => {
    const tenant = await createTenant(t);
    const a = await createFlow(t, tenant, { name: 'Alpha', steps: [{ type: 'MODAL' }, { type: 'WAIT' }] });
    const b = await createFlow(t, tenant, { name: 'Beta' });
    const c = await createFlow(t, tenant, { name: 'Gamma', steps: [{ type: 'BANNER' }] });
    await callAs(t, tenant, 'POST', `/api/flows/${c.id}/archive`);

    const res = await callAs(t, tenant, 'GET', '/api/flows');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(body.data.map((f: { id: string }) => f.id)).toEqual([b.id, a.id]);
    expect(body.data[1]).toEqual({
      id: a.id,
      name: 'Alpha',
      description: null,
      template: 'PRODUCT_TOUR',
      status: 'DRAFT',
      tenantId: tenant.tenantId,
      siteId: SITE,
      audienceId: null,
      trigger: null,
      scheduledAt: null,
      expiresAt: null,
      priority: 0,
      bypassCaps: false,
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
      _count: { steps: 2 },
    });
    expect(body.data[0]._count).toEqual({ steps: 0 });

    const archived = (await callAs(t, tenant, 'GET', '/api/flows?status=ARCHIVED')).json();
    expect(archived.data.map((f: { id: string }) => f.id)).toEqual([c.id]);
    expect(archived.data[0]).toMatchObject({ status: 'ARCHIVED', _count: { steps: 1 } });
  });

  it('filters by status, template, siteId and search, and paginates', async () => {
    const tenant = await createTenant(t);
    const otherSite = '0190a000-0000-7000-8000-000000000002';
    const tour = await createFlow(t, tenant, { name: 'Checkout Tour', template: 'PRODUCT_TOUR' });
    const demo = await createFlow(t, tenant, {
      name: 'demo_100%',
      template: 'INTERACTIVE_DEMO',
      siteId: otherSite,
    });
    const seq = await createFlow(t, tenant, { name: 'News', template: 'ANNOUNCEMENT_SEQUENCE' });
    await callAs(t, tenant, 'POST', `/api/flows/${seq.id}/publish`);
    const ids = async (query: string) =>
      (await callAs(t, tenant, 'GET', `/api/flows${query}`)).json().data.map((f: { id: string }) => f.id);

    expect(await ids('?status=PUBLISHED')).toEqual([seq.id]);
    expect(await ids('?status=DRAFT')).toEqual([demo.id, tour.id]);
    expect(await ids('?template=INTERACTIVE_DEMO')).toEqual([demo.id]);
    expect(await ids(`?siteId=${otherSite}`)).toEqual([demo.id]);
    expect(await ids(`?siteId=${SITE}&template=PRODUCT_TOUR`)).toEqual([tour.id]);
    expect(await ids('?search=TOUR')).toEqual([tour.id]);
    expect(await ids('?search=checkout%20t')).toEqual([tour.id]);
    expect(await ids('?search=100%25')).toEqual([demo.id]);
    expect(await ids('?search=_1')).toEqual([demo.id]);
    expect(await ids('?search=%25')).toEqual([demo.id]);
    expect(await ids('?search=nothing')).toEqual([]);

    const page2 = (await callAs(t, tenant, 'GET', '/api/flows?limit=2&page=2')).json();
    expect(page2.meta).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(page2.data.map((f: { id: string }) => f.id)).toEqual([tour.id]);
    const beyond = (await callAs(t, tenant, 'GET', '/api/flows?limit=2&page=5')).json();
    expect(beyond).toEqual({ data: [], meta: { page: 5, limit: 2, total: 3, totalPages: 2 } });
  });

  it('rejects bad filters with query paths', async () => {
    for (const [query, path] of [
      ['siteId=abc', 'query.siteId'],
      ['status=LIVE', 'query.status'],
      ['template=TOUR', 'query.template'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['page=0', 'query.page'],
      ['page=x', 'query.page'],
    ]) {
      const err = expectError(await callAs(t, acme, 'GET', `/api/flows?${query}`), 400, 'VALIDATION_ERROR');
      expect(err.details).toContainEqual({ path, message: expect.any(String) });
    }
  });

  it("never lists another tenant's flows", async () => {
    const mine = await createFlow(t, acme, { name: 'Mine only' });
    const theirs = (await callAs(t, other, 'GET', '/api/flows?limit=100&search=Mine%20only')).json();
    expect(theirs.data.map((f: { id: string }) => f.id)).not.toContain(mine.id);
    expect(theirs.meta.total).toBe(0);
  });
});

describe('PATCH /api/flows/:id', () => {
  it('updates any subset, replaces steps, and writes FLOW_UPDATED with the changed fields', async () => {
    const audienceId = await insertAudience(t, acme.tenantId);
    const flow = await createFlow(t, acme, {
      description: 'old',
      steps: [{ type: 'MODAL' }, { type: 'TOOLTIP' }, { type: 'BEACON' }],
    });
    t.clock.set(Date.now() + 5_000);
    try {
      const res = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {
        name: 'Renamed',
        audienceId,
        trigger: { type: 'URL_MATCH', config: { matchType: 'glob', pattern: '/app/*' } },
        steps: [
          { type: 'VIDEO', content: { url: 'v' } },
          { type: 'FORM', order: 0 },
        ],
      });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      expect(data).toMatchObject({
        name: 'Renamed',
        description: 'old',
        audienceId,
        template: 'PRODUCT_TOUR',
        trigger: { type: 'URL_MATCH', config: { matchType: 'glob', pattern: '/app/*' } },
      });
      expect(data.steps.map((s: { type: string; order: number }) => [s.type, s.order])).toEqual([
        ['VIDEO', 0],
        ['FORM', 1],
      ]);
      expect(data.steps.map((s: { id: string }) => s.id)).not.toContain(flow.steps[0]!.id);
      expect(new Date(data.updatedAt).getTime()).toBeGreaterThan(new Date(flow.updatedAt).getTime());
    } finally {
      t.clock.set(Date.now());
    }

    const cleared = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {
      description: null,
      audienceId: null,
      trigger: null,
      steps: [],
    });
    expect(cleared.json().data).toMatchObject({
      description: null,
      audienceId: null,
      trigger: null,
      steps: [],
    });

    const rows = await auditEntries(t, acme.tenantId, { action: 'FLOW_UPDATED', entityId: flow.id });
    expect(rows[0]!.metadata).toMatchObject({ changed: ['name', 'trigger', 'audienceId', 'steps'] });
    expect(rows[0]).toMatchObject({
      actorId: acme.owner.userId,
      tenantId: acme.tenantId,
      entityType: 'flow',
    });
    expect(rows[1]!.metadata).toMatchObject({
      changed: ['description', 'trigger', 'audienceId', 'steps'],
    });
  });

  it('answers the unchanged flow for an empty body without writing an audit row', async () => {
    const flow = await createFlow(t, acme);
    const res = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(flow);
    expect(await auditActions(flow.id)).toEqual(['FLOW_CREATED']);
  });

  it('answers a re-sent identical flow, steps included, as it is: no write, no audit row', async () => {
    const flow = await createFlow(t, acme, {
      description: 'Tour',
      settings: { theme: { color: 'blue', size: 2 } },
      trigger: { type: 'URL_MATCH', config: { matchType: 'glob', pattern: '/app/**' } },
      audienceId: await insertAudience(t, acme.tenantId),
      scheduledAt: '2090-01-01T00:00:00.000Z',
      expiresAt: '2090-02-01T00:00:00.000Z',
      steps: [
        { type: 'MODAL', content: { title: 'Hi', body: { a: 1, b: [1, 2] } } },
        { type: 'TOOLTIP', targetSelector: '#save', settings: { placement: 'top' } },
      ],
    });
    const at = Date.parse(flow.updatedAt) + 3_600_000;
    t.clock.set(at);
    try {
      for (const payload of [
        // the record as read (its read-only fields are stripped, its status is the one it has)
        flow,
        // objects compared as JSON whatever their key order; absent step fields are their defaults
        {
          settings: { theme: { size: 2, color: 'blue' } },
          trigger: { type: 'URL_MATCH', config: { pattern: '/app/**', matchType: 'glob' } },
          steps: [
            { type: 'MODAL', content: { body: { b: [1, 2], a: 1 }, title: 'Hi' }, settings: {} },
            { type: 'TOOLTIP', targetSelector: '#save', content: {}, settings: { placement: 'top' } },
          ],
        },
      ]) {
        const res = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, payload);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data).toEqual(flow);
      }
      expect((await callAs(t, acme, 'GET', `/api/flows/${flow.id}`)).json().data).toEqual(flow);
      expect(await auditActions(flow.id)).toEqual(['FLOW_CREATED']);

      // Only what differs is written and audited: the steps stay as they are.
      const renamed = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, { ...flow, name: 'Renamed' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json().data).toEqual({
        ...flow,
        name: 'Renamed',
        updatedAt: new Date(at).toISOString(),
      });
      // One step differing replaces the list.
      const restepped = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {
        steps: [flow.steps[0], { ...flow.steps[1], targetSelector: '#cancel' }],
      });
      expect(restepped.statusCode, restepped.body).toBe(200);
      const steps = restepped.json().data.steps as { id: string; targetSelector: string | null }[];
      expect(steps.map((s) => s.targetSelector)).toEqual([null, '#cancel']);
      expect(steps.map((s) => s.id)).not.toContain(flow.steps[0]!.id);
    } finally {
      t.clock.set(Date.now());
    }
    const rows = await auditEntries(t, acme.tenantId, { action: 'FLOW_UPDATED', entityId: flow.id });
    expect(rows.map((r) => r.metadata)).toEqual([{ changed: ['name'] }, { changed: ['steps'] }]);
  });

  it('validates like create, including the window against stored dates', async () => {
    const flow = await createFlow(t, acme, { scheduledAt: '2030-01-01T00:00:00Z' });
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ template: 'x' }, 'template'],
      [{ siteId: null }, 'siteId'],
      [{ steps: [{ type: 'NOPE' }] }, 'steps.0.type'],
      [{ expiresAt: '2029-12-31T00:00:00Z' }, 'expiresAt'],
      [
        { trigger: { type: 'URL_MATCH', config: { matchType: 'regex', pattern: '(x+x+)+y' } } },
        'trigger.config.pattern',
      ],
      [{ audienceId: await insertAudience(t, other.tenantId) }, 'audienceId'],
      [{ status: 'LIVE' }, 'status'],
    ];
    for (const [payload, path] of cases) {
      const err = expectError(
        await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, payload),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details, JSON.stringify(payload)).toContainEqual({ path, message: expect.any(String) });
    }
    // Clearing scheduledAt makes the later expiry fine.
    const ok = await callAs(t, acme, 'PATCH', `/api/flows/${flow.id}`, {
      scheduledAt: null,
      expiresAt: '2029-12-31T00:00:00.000Z',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ scheduledAt: null, expiresAt: '2029-12-31T00:00:00.000Z' });
  });
});

describe('roles', () => {
  it('lets VIEWER read only and EDITOR write', async () => {
    const flow = await createFlow(t, acme, { steps: [{ type: 'MODAL' }] });
    const stepId = flow.steps[0]!.id;
    const viewer = await acme.as('VIEWER');
    const editor = await acme.as('EDITOR');
    for (const url of [
      '/api/flows',
      `/api/flows/${flow.id}`,
      `/api/flows/${flow.id}/steps`,
      `/api/flows/${flow.id}/steps/${stepId}`,
    ]) {
      expect((await callAs(t, viewer, 'GET', url)).statusCode).toBe(200);
    }
    const writes: [Parameters<typeof callAs>[2], string, unknown][] = [
      ['POST', '/api/flows', { name: 'x', siteId: SITE, template: 'CUSTOM' }],
      ['PATCH', `/api/flows/${flow.id}`, { name: 'y' }],
      ['POST', `/api/flows/${flow.id}/steps`, { type: 'MODAL' }],
      ['PATCH', `/api/flows/${flow.id}/steps/${stepId}`, { content: {} }],
      ['POST', `/api/flows/${flow.id}/steps/reorder`, { stepIds: [stepId] }],
      ['DELETE', `/api/flows/${flow.id}/steps/${stepId}`, undefined],
      ['POST', `/api/flows/${flow.id}/publish`, undefined],
      ['POST', `/api/flows/${flow.id}/archive`, undefined],
      ['POST', `/api/flows/${flow.id}/restore`, undefined],
      ['DELETE', `/api/flows/${flow.id}`, undefined],
    ];
    for (const [method, url, payload] of writes) {
      expectError(await callAs(t, viewer, method, url, payload), 403, 'INSUFFICIENT_ROLE');
    }
    const expected = [201, 200, 201, 200, 400, 204, 200, 200, 200, 200];
    for (const [i, [method, url, payload]] of writes.entries()) {
      const res = await callAs(t, editor, method, url, payload);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(expected[i]);
    }
    expectError(await t.inject({ method: 'GET', url: '/api/flows' }), 401, 'AUTH_NO_TOKEN');
    expectError(await t.inject({ method: 'POST', url: '/api/flows', payload: {} }), 401, 'AUTH_NO_TOKEN');
  });
});

describe('tenant isolation', () => {
  it("answers 404 CONTENT_NOT_FOUND on every flow and step route for another tenant's, unknown and malformed ids", async () => {
    const flow = await createFlow(t, acme, { steps: [{ type: 'MODAL' }, { type: 'WAIT' }] });
    const stepId = flow.steps[0]!.id;
    const routes = (id: string, sid: string): [Parameters<typeof callAs>[2], string, unknown][] => [
      ['GET', `/api/flows/${id}`, undefined],
      ['PATCH', `/api/flows/${id}`, { name: 'hijack' }],
      ['DELETE', `/api/flows/${id}`, undefined],
      ['DELETE', `/api/flows/${id}?disableDependents=true`, undefined],
      ['POST', `/api/flows/${id}/publish`, undefined],
      ['POST', `/api/flows/${id}/archive`, undefined],
      ['POST', `/api/flows/${id}/restore`, undefined],
      ['GET', `/api/flows/${id}/steps`, undefined],
      ['POST', `/api/flows/${id}/steps`, { type: 'MODAL' }],
      ['POST', `/api/flows/${id}/steps/reorder`, { stepIds: [] }],
      ['GET', `/api/flows/${id}/steps/${sid}`, undefined],
      ['PATCH', `/api/flows/${id}/steps/${sid}`, { order: 1 }],
      ['DELETE', `/api/flows/${id}/steps/${sid}`, undefined],
    ];
    for (const [method, url, payload] of [
      ...routes(flow.id, stepId),
      ...routes(UNKNOWN, stepId),
      ...routes('not-a-uuid', 'nope'),
    ]) {
      expectError(await callAs(t, other, method, url, payload), 404, 'CONTENT_NOT_FOUND');
    }
    // The first tenant's flow is untouched.
    const after = (await callAs(t, acme, 'GET', `/api/flows/${flow.id}`)).json().data;
    expect(after).toEqual(flow);
  });

  it('answers 404 for a step id that is unknown, malformed or belongs to another flow', async () => {
    const a = await createFlow(t, acme, { steps: [{ type: 'MODAL' }] });
    const b = await createFlow(t, acme, { steps: [{ type: 'MODAL' }] });
    for (const sid of [b.steps[0]!.id, UNKNOWN, 'x']) {
      for (const [method, payload] of [
        ['GET', undefined],
        ['PATCH', { order: 0 }],
        ['DELETE', undefined],
      ] as const) {
        expectError(
          await callAs(t, acme, method, `/api/flows/${a.id}/steps/${sid}`, payload),
          404,
          'CONTENT_NOT_FOUND',
        );
      }
    }
  });
});

describe('OpenAPI', () => {
  it('documents the flow routes', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of [
      '/api/flows',
      '/api/flows/{id}',
      '/api/flows/{id}/publish',
      '/api/flows/{id}/steps',
      '/api/flows/{id}/steps/reorder',
      '/api/flows/{id}/steps/{stepId}',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
