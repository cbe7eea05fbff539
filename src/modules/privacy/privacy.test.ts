import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard } from '../../../test/helpers/sdk.js';
import {
  analyticsUserDays,
  endUserItemStates,
  endUserServes,
  endUsers,
  eventBatches,
  eventDeadLetters,
  experimentAssignments,
  journeyEnrollments,
  npsResponses,
  privacyDeletions,
  surveyResponses,
  webhookDeliveries,
} from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { runDueDeletions } from './deletion-job.js';

/**
 * End-user deletion and export (docs/privacy.md), through HTTP and the real job, on the test's
 * database. The catalog test lists every table with an end-user column from the live database,
 * so a new table cannot be forgotten by the deletion.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    config: { webhooks: { allowPrivate: true, retryBaseMs: 20, retryMaxMs: 3_600_000, timeoutMs: 2_000 } },
  });
});
afterAll(async () => {
  await t?.close();
});

/** Columns that hold an end user's identity (`user_id` columns are dashboard users, not end users). */
const END_USER_COLUMNS = ['end_user_id', 'user_key', 'external_id', 'anonymous_id', 'external_user_id'];
/** Tables whose end-user data is inside a body (JSON of events, webhook payloads), not a column. */
const BODY_TABLES = ['event_batches', 'event_dead_letters', 'webhook_deliveries'];
/** Tables the deletion keeps, and why (docs/privacy.md, "What is kept"). */
const KEPT = { privacy_deletions: 'the request itself: which userId was erased, when, by whom' };

const db = () => t.deps.database.db;

async function tablesWithEndUserColumns(): Promise<string[]> {
  const rows = await t.deps.database.query<{ table_name: string }>(
    `select distinct table_name from information_schema.columns
     where table_schema = 'public' and column_name = any($1::text[])`,
    [END_USER_COLUMNS],
  );
  return [...rows.map((r) => r.table_name), ...BODY_TABLES].sort();
}

interface Seeded {
  userId: string;
  anonymousId: string;
  endUserId: string;
}

/**
 * A row of the user in every table with an end-user column (parents left out: the foreign keys
 * are not what is tested, so they are switched off for the seed), and events in the log sent
 * through the SDK: the user's, its anonymous visits before identify, and `other`'s in the same
 * batches.
 */
async function seed(tenant: TenantFixture, key: string, userId: string, other: string): Promise<Seeded> {
  const anonymousId = `anon-${userId}`;
  const endUserId = newId();
  const anonymousOnly = newId();
  const now = new Date();
  await db().transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    const tenantId = tenant.tenantId;
    await tx.insert(endUsers).values([
      { id: endUserId, tenantId, externalId: userId, anonymousId },
      { id: anonymousOnly, tenantId, anonymousId },
    ]);
    await tx.insert(endUserItemStates).values({ tenantId, endUserId, itemId: newId(), completedAt: now });
    await tx
      .insert(endUserServes)
      .values({ tenantId, endUserId, itemId: newId(), scopes: ['auto'], firstAt: now, lastAt: now });
    await tx
      .insert(experimentAssignments)
      .values({ tenantId, endUserId, experimentId: newId(), variantId: newId(), assignedAt: now });
    await tx
      .insert(journeyEnrollments)
      .values({ id: newId(), tenantId, journeyId: newId(), endUserId, state: {}, enrolledAt: now });
    await tx
      .insert(surveyResponses)
      .values({ id: newId(), tenantId, surveyId: newId(), endUserId: anonymousOnly, response: { q: 'a' } });
    await tx
      .insert(npsResponses)
      .values({ id: newId(), tenantId, npsSurveyId: newId(), endUserId, score: 9 });
    await tx.insert(analyticsUserDays).values([
      { tenantId, scope: 'active', userKey: `u:${userId}`, origin: '2026-12-01', days: '101' },
      { tenantId, scope: 'active', userKey: `a:${anonymousId}`, origin: '2026-12-01', days: '1' },
    ]);
    await tx.insert(webhookDeliveries).values({
      id: newId(),
      tenantId,
      webhookId: newId(),
      messageId: `msg_${newId()}`,
      eventType: 'flow.completed',
      payload: JSON.stringify({
        type: 'flow.completed',
        timestamp: now,
        data: { userId, anonymousId: null },
      }),
    });
    await tx.insert(eventDeadLetters).values({
      id: newId(),
      tenantId,
      batchId: newId(),
      correlationId: newId(),
      event: { type: 'PAGE_VIEW', anonymousId },
      reason: 'test',
    });
  });
  const send = async (events: Record<string, unknown>[]) => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { 'x-api-key': key },
      payload: { events },
    });
    expect(res.statusCode, res.body).toBe(202);
  };
  await send([
    { type: 'PAGE_VIEW', anonymousId, url: 'https://app.example.com/' },
    { type: 'PAGE_VIEW', userId: other, anonymousId, url: 'https://app.example.com/shared-device' },
  ]);
  await send([{ type: 'PAGE_VIEW', userId, anonymousId, url: 'https://app.example.com/a' }]);
  await send([
    { type: 'PAGE_VIEW', userId, url: 'https://app.example.com/b' },
    { type: 'PAGE_VIEW', userId: other, anonymousId: `anon-${other}`, url: 'https://app.example.com/c' },
  ]);
  return { userId, anonymousId, endUserId };
}

/** Every row naming the user, per table with an end-user column (the catalog's), as counts. */
async function rowsOf(tenantId: string, s: Seeded): Promise<Record<string, number>> {
  const q = async (text: string, params: unknown[]) =>
    (await t.deps.database.query<{ n: number }>(text, params))[0]!.n;
  const out: Record<string, number> = {};
  for (const table of await tablesWithEndUserColumns()) {
    if (table in KEPT) continue;
    let n: number;
    switch (table) {
      case 'end_users':
        n = await q(
          `select count(*)::int as n from end_users where tenant_id = $1 and (external_id = $2 or (external_id is null and anonymous_id = $3))`,
          [tenantId, s.userId, s.anonymousId],
        );
        break;
      case 'analytics_user_days':
        n = await q(
          `select count(*)::int as n from analytics_user_days where tenant_id = $1 and user_key = any($2::text[])`,
          [tenantId, [`u:${s.userId}`, `a:${s.anonymousId}`]],
        );
        break;
      case 'event_batches': {
        const rows = await db()
          .select({ events: eventBatches.events, eventsBr: eventBatches.eventsBr })
          .from(eventBatches)
          .where(eq(eventBatches.tenantId, tenantId));
        const { brotliDecompressSync } = await import('node:zlib');
        n = rows
          .flatMap(
            (r) =>
              (
                JSON.parse(r.events ?? brotliDecompressSync(r.eventsBr!).toString()) as {
                  events: Record<string, unknown>[];
                }
              ).events,
          )
          .filter(
            (e) => e.userId === s.userId || (e.userId === undefined && e.anonymousId === s.anonymousId),
          ).length;
        break;
      }
      case 'event_dead_letters':
        n = await q(
          `select count(*)::int as n from event_dead_letters where tenant_id = $1 and (event->>'userId' = $2 or event->>'anonymousId' = $3)`,
          [tenantId, s.userId, s.anonymousId],
        );
        break;
      case 'webhook_deliveries':
        n = await q(
          `select count(*)::int as n from webhook_deliveries where tenant_id = $1 and event_type <> 'end_user.deleted'
             and (payload::jsonb->'data'->>'userId' = $2)`,
          [tenantId, s.userId],
        );
        break;
      default:
        // Every other table names the end user by end_user_id.
        n = await q(
          `select count(*)::int as n from ${table} where tenant_id = $1
             and end_user_id in (select id from end_users where tenant_id = $1 and (external_id = $2 or (external_id is null and anonymous_id = $3)))`,
          [tenantId, s.userId, s.anonymousId],
        );
    }
    out[table] = n;
  }
  return out;
}

const allZero = (counts: Record<string, number>) =>
  Object.fromEntries(Object.keys(counts).map((k) => [k, 0]));

async function requestDeletion(tenant: TenantFixture, userId: string) {
  const res = await callAs(t, tenant, 'POST', '/api/privacy/deletions', { userId });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data as { id: string; status: string };
}

describe('end-user deletion', () => {
  let acme: TenantFixture;
  let globex: TenantFixture;
  let acmeKey: string;
  let globexKey: string;
  beforeAll(async () => {
    acme = await createTenant(t);
    globex = await createTenant(t);
    acmeKey = await apiKeyOf(t, acme);
    globexKey = await apiKeyOf(t, globex);
  });

  it('covers every table with an end-user column in the live catalog (a new table fails here)', async () => {
    const tables = await tablesWithEndUserColumns();
    // Not vacuous: the catalog query sees the tables we know of.
    expect(tables).toEqual(expect.arrayContaining(['end_users', 'end_user_serves', 'journey_enrollments']));
    const d = await requestDeletion(acme, `nobody-${randomUUID()}`);
    await runDueDeletions(t.deps);
    const done = (await dashboard(t, acme, 'GET', `/api/privacy/deletions/${d.id}`)) as {
      removed: Record<string, number>;
    };
    const erased = new Set(Object.keys(done.removed));
    expect(tables.filter((table) => !erased.has(table) && !(table in KEPT))).toEqual([]);
  });

  it('removes every row of the user, keeps another user and another tenant untouched, emits end_user.deleted', async () => {
    await dashboard(t, acme, 'POST', '/api/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['end_user.deleted'],
    });
    const ann = await seed(acme, acmeKey, `ann-${randomUUID()}`, 'bob');
    const bob = await seed(acme, acmeKey, `bob-${randomUUID()}`, 'ann');
    // The same userId in another tenant.
    const annElsewhere = await seed(globex, globexKey, ann.userId, 'bob');
    await t.processEvents();

    const before = await rowsOf(acme.tenantId, ann);
    // Not vacuous: the seed put the user in every table.
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    const bobBefore = await rowsOf(acme.tenantId, bob);
    const elsewhereBefore = await rowsOf(globex.tenantId, annElsewhere);

    const d = await requestDeletion(acme, ann.userId);
    expect(d.status).toBe('pending');
    expect(await runDueDeletions(t.deps)).toBe(1);

    expect(await rowsOf(acme.tenantId, ann)).toEqual(allZero(before));
    expect(await rowsOf(acme.tenantId, bob)).toEqual(bobBefore);
    expect(await rowsOf(globex.tenantId, annElsewhere)).toEqual(elsewhereBefore);

    const done = await dashboard(t, acme, 'GET', `/api/privacy/deletions/${d.id}`);
    expect(done).toMatchObject({
      id: d.id,
      userId: ann.userId,
      status: 'completed',
      attempts: 1,
      lastError: null,
    });
    expect(done.removed).toMatchObject({
      end_users: 2,
      events: 3,
      event_dead_letters: 1,
      analytics_user_days: 2,
    });
    // The activity days stay, as anonymous counts under a random key.
    const erasedDays = await db()
      .select({ days: analyticsUserDays.days })
      .from(analyticsUserDays)
      .where(
        and(eq(analyticsUserDays.tenantId, acme.tenantId), sql`${analyticsUserDays.userKey} like 'erased:%'`),
      );
    expect(erasedDays).toHaveLength(2);

    const messages = await db()
      .select({ payload: webhookDeliveries.payload })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.tenantId, acme.tenantId),
          eq(webhookDeliveries.eventType, 'end_user.deleted'),
        ),
      );
    expect(messages.map((m) => JSON.parse(m.payload).data)).toEqual([
      { userId: ann.userId, deletionId: d.id },
    ]);
    const [entry] = await auditEntries(t, acme.tenantId, {
      action: 'END_USER_DELETION_REQUESTED',
      entityId: d.id,
    });
    expect(entry).toMatchObject({ actorId: acme.owner.userId, metadata: { userId: ann.userId } });
  });

  it('resumes a request whose worker died mid-job (lease run out), and runs it once', async () => {
    const s = await seed(acme, acmeKey, `carl-${randomUUID()}`, 'dora');
    await t.processEvents();
    const d = await requestDeletion(acme, s.userId);
    // A worker claimed it, then died: the row is running with a lease that has run out.
    await db()
      .update(privacyDeletions)
      .set({ status: 'running', attempts: 1, leaseUntil: new Date(Date.now() - 1_000) })
      .where(eq(privacyDeletions.id, d.id));
    expect(await runDueDeletions(t.deps)).toBe(1);
    const done = await dashboard(t, acme, 'GET', `/api/privacy/deletions/${d.id}`);
    expect(done).toMatchObject({ status: 'completed', attempts: 2 });
    expect(Object.values(await rowsOf(acme.tenantId, s)).every((n) => n === 0)).toBe(true);
    // Completed: never claimed again.
    expect(await runDueDeletions(t.deps)).toBe(0);
  });

  it('leaves a request another worker holds (lease still running) alone', async () => {
    const d = await requestDeletion(acme, `held-${randomUUID()}`);
    await db()
      .update(privacyDeletions)
      .set({ status: 'running', attempts: 1, leaseUntil: new Date(Date.now() + 60_000) })
      .where(eq(privacyDeletions.id, d.id));
    await runDueDeletions(t.deps);
    expect(await dashboard(t, acme, 'GET', `/api/privacy/deletions/${d.id}`)).toMatchObject({
      status: 'running',
      attempts: 1,
    });
    await db()
      .update(privacyDeletions)
      .set({ status: 'failed', leaseUntil: null })
      .where(eq(privacyDeletions.id, d.id));
  });

  it('accepts an unknown userId: 202, then completed with nothing removed', async () => {
    const d = await requestDeletion(acme, `unknown-${randomUUID()}`);
    await runDueDeletions(t.deps);
    const done = await dashboard(t, acme, 'GET', `/api/privacy/deletions/${d.id}`);
    expect(done.status).toBe('completed');
    expect(Object.values(done.removed as Record<string, number>).every((n) => n === 0)).toBe(true);
  });

  it('lists requests newest first, paginated', async () => {
    const fresh = await createTenant(t);
    const a = await requestDeletion(fresh, 'u-a');
    const b = await requestDeletion(fresh, 'u-b');
    const res = await callAs(t, fresh, 'GET', '/api/privacy/deletions?limit=1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      data: [{ id: b.id, userId: 'u-b', status: 'pending' }],
      meta: { page: 1, limit: 1, total: 2, totalPages: 2 },
    });
    const page2 = await callAs(t, fresh, 'GET', '/api/privacy/deletions?limit=1&page=2');
    expect(page2.json().data.map((r: { id: string }) => r.id)).toEqual([a.id]);
    expectError(await callAs(t, fresh, 'GET', '/api/privacy/deletions?limit=500'), 400, 'VALIDATION_ERROR');
  });

  it('refuses a missing or blank userId (400 naming the field)', async () => {
    for (const body of [{}, { userId: '' }, { userId: '   ' }, { userId: 'x'.repeat(256) }, { userId: 42 }]) {
      const res = await callAs(t, acme, 'POST', '/api/privacy/deletions', body);
      const err = expectError(res, 400, 'VALIDATION_ERROR');
      expect(err.details).toEqual([expect.objectContaining({ path: 'userId' })]);
    }
  });

  it("answers 404 for another tenant's request and for an unknown or malformed id", async () => {
    const d = await requestDeletion(acme, `iso-${randomUUID()}`);
    expectError(await callAs(t, globex, 'GET', `/api/privacy/deletions/${d.id}`), 404, 'NOT_FOUND');
    expectError(await callAs(t, acme, 'GET', `/api/privacy/deletions/${newId()}`), 404, 'NOT_FOUND');
    expectError(await callAs(t, acme, 'GET', '/api/privacy/deletions/not-a-uuid'), 404, 'NOT_FOUND');
    const list = await callAs(t, globex, 'GET', '/api/privacy/deletions?limit=100');
    expect(list.json().data.map((r: { id: string }) => r.id)).not.toContain(d.id);
  });

  it('lets OWNER and ADMIN in and refuses EDITOR, VIEWER (403) and no session (401)', async () => {
    const admin = await acme.as('ADMIN');
    expect(
      (await callAs(t, admin, 'POST', '/api/privacy/deletions', { userId: 'by-admin' })).statusCode,
    ).toBe(202);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      for (const [method, url] of [
        ['GET', '/api/privacy/deletions'],
        ['POST', '/api/privacy/deletions'],
        ['GET', `/api/privacy/deletions/${newId()}`],
        ['GET', '/api/privacy/exports/someone'],
      ] as const) {
        expectError(
          await callAs(t, actor, method, url, method === 'POST' ? { userId: 'x' } : undefined),
          403,
          'INSUFFICIENT_ROLE',
        );
      }
    }
    expectError(await t.inject({ method: 'GET', url: '/api/privacy/deletions' }), 401, 'AUTH_NO_TOKEN');
  });
});

describe('end-user export', () => {
  let acme: TenantFixture;
  let globex: TenantFixture;
  let key: string;
  beforeAll(async () => {
    acme = await createTenant(t);
    globex = await createTenant(t);
    key = await apiKeyOf(t, acme);
  });

  it("answers everything stored about the user, and nothing of another user's", async () => {
    const s = await seed(acme, key, `erin-${randomUUID()}`, 'frank');
    await t.processEvents();
    const res = await callAs(t, acme, 'GET', `/api/privacy/exports/${encodeURIComponent(s.userId)}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.userId).toBe(s.userId);
    expect(data.endUsers.map((u: { id: string }) => u.id)).toContain(s.endUserId);
    expect(data.endUsers).toHaveLength(2);
    for (const k of [
      'itemStates',
      'serves',
      'experimentAssignments',
      'journeyEnrollments',
      'npsResponses',
      'surveyResponses',
    ])
      expect(data[k], k).toHaveLength(1);
    expect(data.activityDays).toHaveLength(2);
    expect(data.webhookMessages).toHaveLength(1);
    expect(data.deadLetters).toHaveLength(1);
    expect(data.events.map((e: { url: string }) => e.url).sort()).toEqual([
      'https://app.example.com/',
      'https://app.example.com/a',
      'https://app.example.com/b',
    ]);
    const [entry] = await auditEntries(t, acme.tenantId, { action: 'END_USER_EXPORTED' });
    expect(entry).toMatchObject({ metadata: { userId: s.userId } });
  });

  it("answers 404 for an unknown user and for another tenant's user", async () => {
    const s = await seed(acme, key, `gina-${randomUUID()}`, 'hank');
    expectError(
      await callAs(t, acme, 'GET', `/api/privacy/exports/nobody-${randomUUID()}`),
      404,
      'NOT_FOUND',
    );
    expectError(await callAs(t, globex, 'GET', `/api/privacy/exports/${s.userId}`), 404, 'NOT_FOUND');
  });
});
