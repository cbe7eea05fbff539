import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import type { Config } from '../../config.js';
import { auditLogs, mailOutbox, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { deliverDue } from './delivery-job.js';
import { webhookEventsEffect } from './events-effect.js';

const FAST: Config['webhooks'] = {
  allowPrivate: true,
  retryBaseMs: 20,
  retryMaxMs: 72 * 3_600_000,
  timeoutMs: 2_000,
};

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await createTestApp({ config: { webhooks: FAST } });
  acme = await createTenant(t, { name: `Acme ${Date.now()}` });
  other = await createTenant(t);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

interface Created {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret: string;
}

async function createHook(
  tenant: TenantFixture,
  body: Record<string, unknown> = {},
  app: TestApp = t,
): Promise<Created> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/webhooks',
    headers: tenant.owner.headers,
    payload: { url: receiver.url, events: ['flow.completed'], ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const call = (
  tenant: TenantFixture,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
) => t.inject({ method, url, headers: tenant.owner.headers, ...(payload === undefined ? {} : { payload }) });

/** Runs the delivery job until nothing is due (retries come due within milliseconds here). */
async function deliverUntilSettled(app: TestApp = t, maxRounds = 60) {
  for (let i = 0; i < maxRounds; i++) {
    await deliverDue(app.deps);
    const pending = await app.deps.database.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, 'pending'));
    if (pending.length === 0) return;
    await new Promise((r) => setTimeout(r, 30));
  }
}

async function deliveriesOf(tenant: TenantFixture, hookId: string, query = '') {
  const res = await call(tenant, 'GET', `/api/webhooks/${hookId}/deliveries${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: {
      id: string;
      messageId: string;
      eventType: string;
      status: string;
      attempts: number;
      responseStatus: number | null;
      responseBody: string | null;
      latencyMs: number | null;
      lastError: string | null;
    }[];
    meta: { total: number; page: number; limit: number; totalPages: number };
  };
}

const headersOf = (r: { headers: Record<string, unknown> }) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('webhook endpoints', () => {
  it('creates an endpoint with a whsec_ secret shown once and kept encrypted', async () => {
    const hook = await createHook(acme, {
      events: ['flow.completed', 'flow.completed', 'survey.responded'],
      description: 'CRM',
    });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(hook.events).toEqual(['flow.completed', 'survey.responded']);
    const [row] = await t.deps.database.db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(JSON.stringify(row)).not.toContain(hook.secret.slice(6));
    expect(t.deps.encryptor.decrypt(row!.secretEncrypted)).toBe(hook.secret);

    const got = await call(acme, 'GET', `/api/webhooks/${hook.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toMatchObject({
      id: hook.id,
      description: 'CRM',
      enabled: true,
      disabledReason: null,
    });
    expect(got.body).not.toContain('whsec_');
    const list = await call(acme, 'GET', '/api/webhooks?limit=100');
    expect(list.json().meta).toMatchObject({ page: 1, limit: 100 });
    expect(list.json().data.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(list.body).not.toContain('whsec_');
  });

  it('changes, disables and deletes an endpoint, each audited', async () => {
    const hook = await createHook(acme);
    const patched = await call(acme, 'PATCH', `/api/webhooks/${hook.id}`, {
      events: ['journey.enrolled'],
      description: 'x',
      enabled: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({
      events: ['journey.enrolled'],
      description: 'x',
      enabled: false,
    });
    expect((await call(acme, 'DELETE', `/api/webhooks/${hook.id}`)).statusCode).toBe(204);
    expectError(await call(acme, 'GET', `/api/webhooks/${hook.id}`), 404, 'NOT_FOUND');
    const actions = (await auditEntries(t, acme.tenantId))
      .filter((a) => a.entityId === hook.id)
      .map((a) => a.action);
    expect(actions.sort()).toEqual(['WEBHOOK_CREATED', 'WEBHOOK_DELETED', 'WEBHOOK_UPDATED']);
  });

  it('answers 400 VALIDATION_ERROR naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ events: ['flow.completed'] }, 'url'],
      [{ url: 'not a url', events: ['flow.completed'] }, 'url'],
      [{ url: 'ftp://example.com/x', events: ['flow.completed'] }, 'url'],
      [{ url: receiver.url, events: [] }, 'events'],
      [{ url: receiver.url, events: ['flow.exploded'] }, 'events.0'],
      [{ url: receiver.url }, 'events'],
      [{ url: receiver.url, events: ['flow.completed'], enabled: 'yes' }, 'enabled'],
      [{ url: receiver.url, events: ['flow.completed'], description: 'x'.repeat(501) }, 'description'],
    ];
    for (const [payload, path] of cases) {
      const err = expectError(await call(acme, 'POST', '/api/webhooks', payload), 400, 'VALIDATION_ERROR');
      expect(
        (err.details as { path: string }[]).map((d) => d.path),
        JSON.stringify(payload),
      ).toContain(path);
    }
    const hook = await createHook(acme);
    const err = expectError(
      await call(acme, 'PATCH', `/api/webhooks/${hook.id}`, { url: 'http://169.254.169.254/latest' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.details).toEqual([{ path: 'url', message: expect.stringContaining('metadata') }]);
  });

  it('lets OWNER and ADMIN manage endpoints and refuses EDITOR and VIEWER', async () => {
    const admin = await acme.as('ADMIN');
    const res = await t.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: admin.headers,
      payload: { url: receiver.url, events: ['flow.completed'] },
    });
    expect(res.statusCode).toBe(201);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      for (const [method, url] of [
        ['GET', '/api/webhooks'],
        ['POST', '/api/webhooks'],
        ['GET', `/api/webhooks/${res.json().data.id}/deliveries`],
        ['POST', `/api/webhooks/${res.json().data.id}/test`],
      ] as const) {
        expectError(
          await t.inject({
            method,
            url,
            headers: actor.headers,
            payload: method === 'POST' ? {} : undefined,
          }),
          403,
          'INSUFFICIENT_ROLE',
        );
      }
    }
    expectError(await t.inject({ method: 'GET', url: '/api/webhooks' }), 401, 'AUTH_NO_TOKEN');
  });

  it("answers 404 for another tenant's endpoint and deliveries", async () => {
    const hook = await createHook(acme);
    await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
    await deliverUntilSettled();
    const [delivery] = (await deliveriesOf(acme, hook.id)).data;
    for (const id of [hook.id, 'nope', '01900000-0000-7000-8000-000000000000']) {
      for (const [method, url, payload] of [
        ['GET', `/api/webhooks/${id}`],
        ['PATCH', `/api/webhooks/${id}`, { description: 'mine' }],
        ['DELETE', `/api/webhooks/${id}`],
        ['POST', `/api/webhooks/${id}/rotate-secret`],
        ['GET', `/api/webhooks/${id}/deliveries`],
        ['POST', `/api/webhooks/${id}/test`],
        ['POST', `/api/webhooks/${id}/deliveries/${delivery!.id}/replay`],
      ] as const) {
        expectError(await call(other, method, url, payload), 404, 'NOT_FOUND');
      }
    }
    expect((await call(other, 'GET', '/api/webhooks')).json().data).toEqual([]);
    expect((await call(acme, 'GET', `/api/webhooks/${hook.id}`)).json().data.description).toBe('');
  });
});

describe('deliveries', () => {
  it('signs as Standard Webhooks: verified by the standardwebhooks package', async () => {
    const hook = await createHook(acme);
    const before = receiver.received.length;
    const test = await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
    expect(test.statusCode, test.body).toBe(202);
    await deliverUntilSettled();
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    const payload = new Webhook(hook.secret).verify(got[0]!.body, headersOf(got[0]!)) as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    expect(Date.parse(payload.timestamp as string)).not.toBeNaN();
    expect(got[0]!.headers['webhook-id']).toBe(test.json().data.messageId);
    expect(got[0]!.headers['content-type']).toBe('application/json');
    // a wrong secret does not verify
    const wrong = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => new Webhook(wrong).verify(got[0]!.body, headersOf(got[0]!))).toThrow();
    const { data } = await deliveriesOf(acme, hook.id);
    expect(data[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      responseStatus: 200,
      responseBody: 'ok',
    });
    expect(data[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('after a rotation signs with the new and the previous secret for 24 h', async () => {
    const hook = await createHook(acme);
    const rotated = await call(acme, 'POST', `/api/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.json().data;
    expect(secret).not.toBe(hook.secret);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const before = receiver.received.length;
    await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
    await deliverUntilSettled();
    const [got] = receiver.received.slice(before);
    expect(got!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(() => new Webhook(secret).verify(got!.body, headersOf(got!))).not.toThrow();
    expect(() => new Webhook(hook.secret).verify(got!.body, headersOf(got!))).not.toThrow();
    expect((await auditEntries(t, acme.tenantId)).map((a) => a.action)).toContain('WEBHOOK_SECRET_ROTATED');
  });

  it('retries a failing receiver with backoff, with the same webhook-id, until 2xx', async () => {
    const hook = await createHook(acme);
    receiver.failTimes(3, 503);
    const before = receiver.received.length;
    await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
    await deliverUntilSettled();
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of got) expect(() => new Webhook(hook.secret).verify(r.body, headersOf(r))).not.toThrow();
    // the gaps grow (base 20 ms, doubling, ±20 %)
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    expect(gaps[2]!).toBeGreaterThanOrEqual(60);
    const [d] = (await deliveriesOf(acme, hook.id)).data;
    expect(d).toMatchObject({ status: 'delivered', attempts: 4, responseStatus: 200 });
    receiver.respond(() => ({ status: 200, body: 'ok' }));
  });

  it('keeps the first 1 kB of the answer and does not follow redirects', async () => {
    const target = await startWebhookReceiver();
    try {
      const hook = await createHook(acme);
      receiver.respond(() => ({ status: 302, body: 'x'.repeat(5000), headers: { location: target.url } }));
      await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
      await deliverDue(t.deps);
      const [d] = (await deliveriesOf(acme, hook.id)).data;
      expect(d).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 302 });
      expect(d!.responseBody).toHaveLength(1024);
      expect(target.received).toHaveLength(0);
      receiver.respond(() => ({ status: 200, body: 'ok' }));
      await deliverUntilSettled();
      expect(target.received).toHaveLength(0);
    } finally {
      receiver.respond(() => ({ status: 200, body: 'ok' }));
      await target.close();
    }
  });

  it('410 Gone disables the endpoint, audited', async () => {
    const hook = await createHook(acme);
    receiver.respond(() => ({ status: 410 }));
    try {
      await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
      await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
      await deliverUntilSettled();
    } finally {
      receiver.respond(() => ({ status: 200, body: 'ok' }));
    }
    const got = (await call(acme, 'GET', `/api/webhooks/${hook.id}`)).json().data;
    expect(got).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410') });
    const { data } = await deliveriesOf(acme, hook.id);
    expect(data.map((d) => d.status)).toEqual(['failed', 'failed']);
    const audits = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.entityId, hook.id), eq(auditLogs.action, 'WEBHOOK_DISABLED')));
    expect(audits).toHaveLength(1);
    // enabling it again clears the reason
    const enabled = await call(acme, 'PATCH', `/api/webhooks/${hook.id}`, { enabled: true });
    expect(enabled.json().data).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('after the maximum period fails the delivery, disables the endpoint and emails the owners', async () => {
    const hook = await createHook(acme);
    receiver.respond(() => ({ status: 500 }));
    try {
      await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
      await deliverDue(t.deps);
      expect((await deliveriesOf(acme, hook.id)).data[0]).toMatchObject({ status: 'pending', attempts: 1 });
      t.clock.set(Date.now() + 72 * 3_600_000 + 1000);
      await deliverDue(t.deps);
    } finally {
      t.clock.reset();
      receiver.respond(() => ({ status: 200, body: 'ok' }));
    }
    expect((await deliveriesOf(acme, hook.id)).data[0]).toMatchObject({ status: 'failed', attempts: 2 });
    expect((await call(acme, 'GET', `/api/webhooks/${hook.id}`)).json().data).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('72 hours'),
    });
    const mails = await t.deps.database.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.tenantId, acme.tenantId));
    const mail = mails.find((m) => m.body.includes(hook.url));
    expect(mail).toMatchObject({ recipient: acme.owner.email, subject: 'A webhook endpoint was disabled' });
  });

  it('replays a delivery as a new one with the same webhook-id; lists with pagination and status', async () => {
    const hook = await createHook(acme);
    await call(acme, 'POST', `/api/webhooks/${hook.id}/test`);
    await deliverUntilSettled();
    const [first] = (await deliveriesOf(acme, hook.id)).data;
    const before = receiver.received.length;
    const replay = await call(acme, 'POST', `/api/webhooks/${hook.id}/deliveries/${first!.id}/replay`);
    expect(replay.statusCode, replay.body).toBe(202);
    expect(replay.json().data).toMatchObject({ status: 'pending', messageId: first!.messageId });
    await deliverUntilSettled();
    expect(receiver.received.slice(before).map((r) => r.headers['webhook-id'])).toEqual([first!.messageId]);
    const page = await deliveriesOf(acme, hook.id, '?limit=1&page=2');
    expect(page.meta).toMatchObject({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expect(page.data).toHaveLength(1);
    expect((await deliveriesOf(acme, hook.id, '?status=failed')).data).toEqual([]);
    expectError(
      await call(acme, 'GET', `/api/webhooks/${hook.id}/deliveries?status=lost`),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(
        acme,
        'POST',
        `/api/webhooks/${hook.id}/deliveries/01900000-0000-7000-8000-000000000000/replay`,
      ),
      404,
      'NOT_FOUND',
    );
  });
});

describe('events', () => {
  let key: string;
  beforeAll(async () => {
    const res = await call(acme, 'POST', '/api/tenants/api-keys', { name: 'sdk' });
    key = res.json().data.key;
  });

  it('flow.completed and flow.dismissed from processed SDK events, only to subscribed endpoints of the tenant', async () => {
    const tenant = await createTenant(t);
    const keyRes = await call(tenant, 'POST', '/api/tenants/api-keys', { name: 'sdk' });
    const completed = await createHook(tenant, { events: ['flow.completed'] });
    const dismissed = await createHook(tenant, { events: ['flow.dismissed'] });
    const flowId = '0190a000-0000-7000-8000-00000000f10e';
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { 'x-api-key': keyRes.json().data.key },
      payload: {
        events: [
          { type: 'FLOW_COMPLETED', userId: 'u-1', properties: { flowId } },
          { type: 'FLOW_DISMISSED', userId: 'u-2', properties: { flowId } },
          { type: 'CLICK', userId: 'u-3' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    // acme's own events do not reach this tenant's endpoints
    await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { 'x-api-key': key },
      payload: { events: [{ type: 'FLOW_COMPLETED', userId: 'acme-user', properties: { flowId } }] },
    });
    await t.processEvents();
    const before = receiver.received.length;
    await deliverUntilSettled();
    const got = receiver.received.slice(before);
    const toCompleted = got
      .map((r) => {
        try {
          return new Webhook(completed.secret).verify(r.body, headersOf(r)) as {
            type: string;
            data: Record<string, unknown>;
          };
        } catch {
          return null;
        }
      })
      .filter((p) => p !== null);
    expect(toCompleted).toEqual([
      {
        type: 'flow.completed',
        timestamp: expect.any(String),
        data: expect.objectContaining({ flowId, userId: 'u-1' }),
      },
    ]);
    const toDismissed = got.filter((r) => {
      try {
        new Webhook(dismissed.secret).verify(r.body, headersOf(r));
        return true;
      } catch {
        return false;
      }
    });
    expect(toDismissed.map((r) => JSON.parse(r.body).type)).toEqual(['flow.dismissed']);
    // acme's event went to acme's endpoints only
    const rows = await t.deps.database.db
      .select({ type: webhookDeliveries.eventType })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.tenantId, tenant.tenantId));
    expect(rows.map((r) => r.type).sort()).toEqual(['flow.completed', 'flow.dismissed']);
  });

  it('writes nothing and asks nothing for tenants without a subscription to the type', async () => {
    const tenant = await createTenant(t);
    const keyRes = await call(tenant, 'POST', '/api/tenants/api-keys', { name: 'sdk' });
    await createHook(tenant, { events: ['journey.enrolled'] });
    await t.inject({
      method: 'POST',
      url: '/api/sdk/events',
      headers: { 'x-api-key': keyRes.json().data.key },
      payload: { events: [{ type: 'FLOW_COMPLETED', userId: 'u', properties: {} }] },
    });
    await t.processEvents([webhookEventsEffect]);
    const rows = await t.deps.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.tenantId, tenant.tenantId));
    expect(rows).toEqual([]);
  });
});
