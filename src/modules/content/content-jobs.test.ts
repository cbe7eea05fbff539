import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  createTenant,
  insertAudience,
  insertFlow,
  type TenantFixture,
} from '../../../test/helpers/factories.js';
import {
  auditLogs,
  type ContentType,
  contentItems,
  endUsers,
  surveyResponses,
} from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { archiveExpiredContent, publishDueAnnouncements } from './bulk.js';
import { loadDeliverableContent } from './delivery-contributor.js';
import { sampleContentBody } from './samples.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
const SITE = '01900000-0000-7000-8000-0000000000a1';

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
});
afterAll(() => t.close());

type Item = Record<string, unknown> & { id: string; status: string; name: string };
const db = () => t.deps.database.db;
const iso = (ms: number) => new Date(ms).toISOString();

async function create(type: ContentType, fields: Record<string, unknown> = {}, tenant = acme): Promise<Item> {
  const res = await t.inject({
    method: 'POST',
    url: `/api/content/${type}`,
    headers: tenant.owner.headers,
    payload: { ...sampleContentBody(type, SITE), ...fields },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function act(type: ContentType, id: string, action: string, tenant = acme): Promise<Item> {
  const res =
    action === 'archive'
      ? await t.inject({ method: 'DELETE', url: `/api/content/${type}/${id}`, headers: tenant.owner.headers })
      : await t.inject({
          method: 'POST',
          url: `/api/content/${type}/${id}/${action}`,
          headers: tenant.owner.headers,
        });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

const statusOf = async (id: string) =>
  (await db().select({ s: contentItems.status }).from(contentItems).where(eq(contentItems.id, id)))[0]!.s;

describe('publishDueAnnouncements', () => {
  it('publishes SCHEDULED announcements whose scheduledAt has come, each once under concurrent runs', async () => {
    const T1 = Date.parse('2101-01-01T00:00:00Z');
    const T2 = T1 + 60_000;
    await publishDueAnnouncements(db(), new Date(T2)); // anything left by other tests
    const due1 = await create('announcements', { scheduledAt: iso(T1) });
    const due2 = await create('announcements', { scheduledAt: iso(T2) }, other);
    const later = await create('announcements', { scheduledAt: iso(T2 + 1) });
    const unpublished = await create('announcements', { scheduledAt: iso(T1) });
    await act('announcements', unpublished.id, 'unpublish');
    for (const a of [due1, due2, later]) expect(a.status).toBe('SCHEDULED');

    expect(await publishDueAnnouncements(db(), new Date(T1 - 1))).toBe(0);
    const counts = await Promise.all([
      publishDueAnnouncements(db(), new Date(T2)),
      publishDueAnnouncements(db(), new Date(T2)),
    ]);
    expect(counts[0]! + counts[1]!).toBe(2);
    expect(await publishDueAnnouncements(db(), new Date(T2))).toBe(0);

    expect(await statusOf(due1.id)).toBe('PUBLISHED');
    expect(await statusOf(due2.id)).toBe('PUBLISHED');
    expect(await statusOf(later.id)).toBe('SCHEDULED');
    expect(await statusOf(unpublished.id)).toBe('DRAFT');
    const got = await t.inject({
      method: 'GET',
      url: `/api/content/announcements/${due1.id}`,
      headers: acme.owner.headers,
    });
    expect(got.json().data).toMatchObject({ status: 'PUBLISHED', publishedAt: iso(T2), updatedAt: iso(T2) });

    const rows = await db()
      .select()
      .from(auditLogs)
      .where(and(inArray(auditLogs.entityId, [due1.id, due2.id]), eq(auditLogs.action, 'CONTENT_UPDATED')));
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r).toMatchObject({
        entityType: 'announcements',
        actorId: null,
        metadata: {
          automatic: true,
          transition: { from: 'SCHEDULED', to: 'PUBLISHED', action: 'publishDue' },
        },
      });
    }
    expect(rows.map((r) => r.tenantId).sort()).toEqual([acme.tenantId, other.tenantId].sort());
  });
});

describe('archiveExpiredContent', () => {
  it('archives PUBLISHED and SCHEDULED items past expiresAt, each once under concurrent runs', async () => {
    const T = Date.parse('2102-01-01T00:00:00Z');
    await archiveExpiredContent(db(), new Date(T));
    const published = await create('announcements', { expiresAt: iso(T - 1000) });
    const scheduled = await create('announcements', { scheduledAt: iso(T - 5000), expiresAt: iso(T) });
    const notYet = await create('announcements', { expiresAt: iso(T + 1) });
    const draft = await create('announcements', { expiresAt: iso(T - 1000) });
    await act('announcements', draft.id, 'unpublish');
    const forever = await create('announcements');
    expect([published.status, scheduled.status]).toEqual(['PUBLISHED', 'SCHEDULED']);

    const counts = await Promise.all([
      archiveExpiredContent(db(), new Date(T)),
      archiveExpiredContent(db(), new Date(T)),
    ]);
    expect(counts[0]! + counts[1]!).toBe(2);
    expect(await archiveExpiredContent(db(), new Date(T))).toBe(0);

    expect(await statusOf(published.id)).toBe('ARCHIVED');
    expect(await statusOf(scheduled.id)).toBe('ARCHIVED');
    expect(await statusOf(notYet.id)).toBe('PUBLISHED');
    expect(await statusOf(draft.id)).toBe('DRAFT');
    expect(await statusOf(forever.id)).toBe('PUBLISHED');
    const got = await t.inject({
      method: 'GET',
      url: `/api/content/announcements/${published.id}`,
      headers: acme.owner.headers,
    });
    expect(got.json().data).toMatchObject({ status: 'ARCHIVED', archivedAt: iso(T) });

    const rows = await db()
      .select()
      .from(auditLogs)
      .where(
        and(
          inArray(auditLogs.entityId, [published.id, scheduled.id]),
          eq(auditLogs.action, 'CONTENT_ARCHIVED'),
        ),
      );
    expect(rows.map((r) => [r.entityId, r.actorId, r.metadata]).sort()).toEqual(
      [
        [
          published.id,
          null,
          { automatic: true, transition: { from: 'PUBLISHED', to: 'ARCHIVED', action: 'expire' } },
        ],
        [
          scheduled.id,
          null,
          { automatic: true, transition: { from: 'SCHEDULED', to: 'ARCHIVED', action: 'expire' } },
        ],
      ].sort(),
    );
  });
});

describe('loadDeliverableContent', () => {
  it('returns the tenant’s PUBLISHED unexpired content of every type and PUBLISHED NPS surveys', async () => {
    const tenant = await createTenant(t);
    const now = Date.now() + 10 * 86_400_000;
    const tooltip = await act('tooltips', (await create('tooltips', {}, tenant)).id, 'publish', tenant);
    await create('beacons', {}, tenant); // draft
    const live = await create('announcements', {}, tenant);
    await create('announcements', { expiresAt: iso(now - 1) }, tenant); // expired, not yet archived
    await create('announcements', { expiresAt: iso(now) }, tenant); // expires exactly now
    const archived = await create('surveys', {}, tenant);
    await act('surveys', archived.id, 'publish', tenant);
    await act('surveys', archived.id, 'archive', tenant);
    await act('beacons', (await create('beacons', {}, other)).id, 'publish', other);
    const npsBody = { name: 'NPS', siteId: SITE, question: 'Recommend?' };
    const nps = (
      await t.inject({
        method: 'POST',
        url: '/api/nps-surveys',
        headers: tenant.owner.headers,
        payload: npsBody,
      })
    ).json().data;
    await t.inject({
      method: 'POST',
      url: `/api/nps-surveys/${nps.id}/publish`,
      headers: tenant.owner.headers,
    });
    await t.inject({
      method: 'POST',
      url: '/api/nps-surveys',
      headers: tenant.owner.headers,
      payload: npsBody,
    });

    const out = await loadDeliverableContent(db(), tenant.tenantId, new Date(now));
    expect(out.content.map((c) => [c.id, c.contentType])).toEqual([
      [tooltip.id, 'tooltips'],
      [live.id, 'announcements'],
    ]);
    expect(out.content[0]).toMatchObject({ targetSelector: '#save', content: { text: 'Saves your work' } });
    expect(out.content[1]).toMatchObject({ type: 'MODAL', status: 'PUBLISHED' });
    expect(out.npsSurveys.map((s) => s.id)).toEqual([nps.id]);
  });
});

describe('GET /api/content/surveys/:id/responses', () => {
  it('lists the survey’s responses newest first with pagination', async () => {
    const survey = await create('surveys');
    const otherSurvey = await create('surveys');
    const endUserId = newId();
    await db()
      .insert(endUsers)
      .values({ id: endUserId, tenantId: acme.tenantId, externalId: `u-${endUserId}` });
    const base = Date.parse('2030-01-01T00:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = newId();
      ids.push(id);
      await db()
        .insert(surveyResponses)
        .values({
          id,
          tenantId: acme.tenantId,
          surveyId: survey.id,
          endUserId: i === 0 ? null : endUserId,
          response: { q1: `answer ${i}` },
          submittedAt: new Date(base + i * 1000),
          eventId: newId(),
        });
    }
    await db()
      .insert(surveyResponses)
      .values({
        id: newId(),
        tenantId: acme.tenantId,
        surveyId: otherSurvey.id,
        response: {},
        submittedAt: new Date(base),
      });

    const viewer = await acme.as('VIEWER');
    const res = await t.inject({
      method: 'GET',
      url: `/api/content/surveys/${survey.id}/responses?limit=2`,
      headers: viewer.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          id: ids[2],
          surveyId: survey.id,
          endUserId,
          response: { q1: 'answer 2' },
          submittedAt: iso(base + 2000),
          tenantId: acme.tenantId,
        },
        {
          id: ids[1],
          surveyId: survey.id,
          endUserId,
          response: { q1: 'answer 1' },
          submittedAt: iso(base + 1000),
          tenantId: acme.tenantId,
        },
      ],
      meta: { page: 1, limit: 2, total: 3, totalPages: 2 },
    });
    const page2 = await t.inject({
      method: 'GET',
      url: `/api/content/surveys/${survey.id}/responses?limit=2&page=2`,
      headers: viewer.headers,
    });
    expect(page2.json().data).toEqual([expect.objectContaining({ id: ids[0], endUserId: null })]);
    expectError(
      await t.inject({
        method: 'GET',
        url: `/api/content/surveys/${survey.id}/responses?limit=500`,
        headers: viewer.headers,
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await t.inject({
        method: 'GET',
        url: `/api/content/surveys/${survey.id}/responses`,
        headers: other.owner.headers,
      }),
      404,
      'CONTENT_NOT_FOUND',
    );
  });

  it('stores one response per event id', async () => {
    const survey = await create('surveys');
    const eventId = newId();
    const row = { tenantId: acme.tenantId, surveyId: survey.id, response: { a: 1 }, eventId };
    const first = await db()
      .insert(surveyResponses)
      .values({ id: newId(), ...row })
      .onConflictDoNothing()
      .returning();
    const again = await db()
      .insert(surveyResponses)
      .values({ id: newId(), ...row })
      .onConflictDoNothing()
      .returning();
    expect([first.length, again.length]).toEqual([1, 0]);
  });
});

describe('audience referrers', () => {
  it('lists non-archived content items and NPS surveys that target the audience', async () => {
    const audienceId = await insertAudience(t, acme.tenantId, {
      name: 'Pros',
      ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' },
    });
    const tooltip = await create('tooltips', { audienceId, name: 'Tip for pros' });
    const list = await create('task-lists', { audienceId, name: 'Pro list' });
    const archived = await create('beacons', { audienceId });
    await act('beacons', archived.id, 'archive');
    await create('beacons'); // no audience
    const nps = (
      await t.inject({
        method: 'POST',
        url: '/api/nps-surveys',
        headers: acme.owner.headers,
        payload: { name: 'Pro NPS', siteId: SITE, question: 'Recommend?', audienceId },
      })
    ).json().data;

    const found = await t.deps.references.findReferrers(db(), 'audience', acme.tenantId, audienceId);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(found.sort(byId)).toEqual(
      [
        { type: 'tooltips', id: tooltip.id, name: 'Tip for pros' },
        { type: 'task-lists', id: list.id, name: 'Pro list' },
        { type: 'nps-survey', id: nps.id, name: 'Pro NPS' },
      ].sort(byId),
    );
    expect(await t.deps.references.findReferrers(db(), 'audience', other.tenantId, audienceId)).toEqual([]);
  });
});

describe('flow dependents', () => {
  it('unpublishes published and scheduled task lists that launch the deleted flow', async () => {
    const flowId = await insertFlow(t, acme.tenantId, { name: 'Tour' });
    const otherFlowId = await insertFlow(t, acme.tenantId, { name: 'Other' });
    const launches = (id: string) => ({
      items: [
        { title: 'Read', actionType: 'NAVIGATE', actionConfig: { url: '/a' } },
        { title: 'Tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId: id } },
      ],
    });
    const published = await act(
      'task-lists',
      (await create('task-lists', { ...launches(flowId), name: 'P' })).id,
      'publish',
    );
    const scheduled = await create('task-lists', { ...launches(flowId), name: 'S' });
    await db().update(contentItems).set({ status: 'SCHEDULED' }).where(eq(contentItems.id, scheduled.id));
    const draft = await create('task-lists', launches(flowId));
    const archived = await create('task-lists', launches(flowId));
    await act('task-lists', archived.id, 'archive');
    const unrelated = await act(
      'task-lists',
      (await create('task-lists', launches(otherFlowId))).id,
      'publish',
    );
    const plain = await act('task-lists', (await create('task-lists')).id, 'publish');
    // Another tenant's list naming the same flow id (written directly): never touched.
    const foreign = await act('task-lists', (await create('task-lists', {}, other)).id, 'publish', other);
    await db()
      .update(contentItems)
      .set({
        body: {
          description: null,
          items: [{ title: 'x', actionType: 'COMPLETE_FLOW', actionConfig: { flowId }, order: 0 }],
        },
      })
      .where(eq(contentItems.id, foreign.id));

    const disabled = await db().transaction((tx) =>
      t.deps.references.disableDependents(tx, 'flow', acme.tenantId, flowId, new Date()),
    );
    const lists = disabled.filter((d) => d.type === 'task-list');
    expect(lists.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { type: 'task-list', id: published.id, name: 'P' },
      { type: 'task-list', id: scheduled.id, name: 'S' },
    ]);
    expect(await statusOf(published.id)).toBe('DRAFT');
    expect(await statusOf(scheduled.id)).toBe('DRAFT');
    expect(await statusOf(draft.id)).toBe('DRAFT');
    expect(await statusOf(archived.id)).toBe('ARCHIVED');
    expect(await statusOf(unrelated.id)).toBe('PUBLISHED');
    expect(await statusOf(plain.id)).toBe('PUBLISHED');
    expect(await statusOf(foreign.id)).toBe('PUBLISHED');

    const rows = await db()
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.entityId, scheduled.id), eq(auditLogs.action, 'CONTENT_UPDATED')));
    expect(rows.map((r) => r.metadata)).toEqual([
      { reason: 'flow-deleted', flowId, transition: { from: 'SCHEDULED', to: 'DRAFT', action: 'unpublish' } },
    ]);
    expect(rows[0]).toMatchObject({ tenantId: acme.tenantId, entityType: 'task-lists', actorId: null });
    // Nothing left to disable.
    const again = await t.deps.references.disableDependents(db(), 'flow', acme.tenantId, flowId, new Date());
    expect(again.filter((d) => d.type === 'task-list')).toEqual([]);
  });
});
