import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import { webhookDeliveries } from '../../db/schema/index.js';
import { deliverDue } from './delivery-job.js';
import type { Resolver } from './sender.js';

/**
 * No server-side request forgery: URLs are checked at save and again at every delivery, against
 * what the host resolves to then (DNS rebinding), through a resolver the tests give the app.
 */

let strict: TestApp; // WEBHOOK_ALLOW_PRIVATE=false (the default)
let onPrem: TestApp; // WEBHOOK_ALLOW_PRIVATE=true
let acme: TenantFixture;
let local: TenantFixture;
let receiver: WebhookReceiver;
const dns = new Map<string, string[]>();

const resolver: Resolver = async (host) => {
  const addresses = dns.get(host);
  if (!addresses) throw new Error(`ENOTFOUND ${host}`);
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const timing = { retryBaseMs: 20, retryMaxMs: 3_600_000, timeoutMs: 2_000 };

beforeAll(async () => {
  strict = await createTestApp({ config: { webhooks: { allowPrivate: false, ...timing } } });
  onPrem = await createTestApp({ config: { webhooks: { allowPrivate: true, ...timing } }, db: strict.db });
  strict.deps.state.webhooks!.resolver = resolver;
  onPrem.deps.state.webhooks!.resolver = resolver;
  acme = await createTenant(strict);
  local = await createTenant(onPrem);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await onPrem?.close();
  await strict?.close();
});

const create = (app: TestApp, tenant: TenantFixture, url: string) =>
  app.inject({
    method: 'POST',
    url: '/api/webhooks',
    headers: tenant.owner.headers,
    payload: { url, events: ['flow.published'] },
  });

function expectUrlRefused(res: Awaited<ReturnType<typeof create>>, pattern?: RegExp) {
  const err = expectError(res, 400, 'VALIDATION_ERROR');
  expect(err.details).toEqual([{ path: 'url', message: expect.any(String) }]);
  if (pattern) expect((err.details as { message: string }[])[0]!.message).toMatch(pattern);
}

async function deliveryOf(app: TestApp, webhookId: string) {
  const [row] = await app.deps.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId));
  return row!;
}

describe('at save', () => {
  it('refuses http and private, loopback, link-local, CGNAT and metadata addresses (literal or resolved)', async () => {
    dns.set('public.example', ['93.184.216.34']);
    dns.set('internal.example', ['10.0.0.7']);
    dns.set('mixed.example', ['93.184.216.34', '192.168.1.1']);
    dns.set('meta.example', ['169.254.169.254']);
    dns.set('v6meta.example', ['fd00:ec2::254']);
    dns.set('mapped.example', ['::ffff:127.0.0.1']);
    dns.set('cgnat.example', ['100.64.1.1']);
    expect((await create(strict, acme, 'https://public.example/hook')).statusCode).toBe(201);
    expectUrlRefused(await create(strict, acme, 'http://public.example/hook'), /https/);
    for (const url of [
      'https://127.0.0.1/hook',
      'https://2130706433/hook',
      'https://0x7f.0.0.1/hook',
      'https://0177.0.0.1/hook',
      'https://[::1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://10.1.2.3/hook',
      'https://172.20.0.1/hook',
      'https://192.168.0.10/hook',
      'https://100.100.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://[fc00::5]/',
      'https://internal.example/hook',
      'https://mixed.example/hook',
      'https://meta.example/hook',
      'https://v6meta.example/hook',
      'https://mapped.example/hook',
      'https://cgnat.example/hook',
    ]) {
      expectUrlRefused(await create(strict, acme, url));
    }
    expectUrlRefused(await create(strict, acme, 'https://nowhere.example/hook'), /resolve/);
  });

  it('with WEBHOOK_ALLOW_PRIVATE: http and loopback/private pass, link-local and metadata stay refused', async () => {
    dns.set('meta.example', ['169.254.169.254']);
    expect((await create(onPrem, local, receiver.url)).statusCode).toBe(201);
    expect((await create(onPrem, local, 'http://10.0.0.1/hook')).statusCode).toBe(201);
    for (const url of [
      'http://169.254.169.254/latest',
      'http://169.254.10.10/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://meta.example/hook',
      'http://100.100.100.200/',
    ]) {
      expectUrlRefused(await create(onPrem, local, url));
    }
  });
});

describe('at every delivery', () => {
  it('checks the address again (DNS rebinding): a host that now resolves to loopback is not contacted', async () => {
    dns.set('rebind.example', ['93.184.216.34']);
    const port = new URL(receiver.url).port;
    const res = await create(strict, acme, `https://rebind.example:${port}/hook`);
    expect(res.statusCode, res.body).toBe(201);
    dns.set('rebind.example', ['127.0.0.1']);
    const before = receiver.received.length;
    const test = await strict.inject({
      method: 'POST',
      url: `/api/webhooks/${res.json().data.id}/test`,
      headers: acme.owner.headers,
    });
    expect(test.statusCode).toBe(202);
    await deliverDue(strict.deps);
    expect(receiver.received.length).toBe(before);
    const row = await deliveryOf(strict, res.json().data.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null });
    expect(row.lastError).toMatch(/refused: url must not reach a loopback address \(127\.0\.0\.1\)/);
  });

  it('connects to the address it checked, not to a second resolution of the name', async () => {
    const port = new URL(receiver.url).port;
    dns.set('pinned.example', ['127.0.0.1']);
    const res = await create(onPrem, local, `http://pinned.example:${port}/hook`);
    expect(res.statusCode, res.body).toBe(201);
    const before = receiver.received.length;
    await onPrem.inject({
      method: 'POST',
      url: `/api/webhooks/${res.json().data.id}/test`,
      headers: local.owner.headers,
    });
    await deliverDue(onPrem.deps);
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers.host).toBe(`pinned.example:${port}`);

    // now the name points at the metadata address: refused even on-premise, nothing sent
    dns.set('pinned.example', ['169.254.169.254']);
    await onPrem.inject({
      method: 'POST',
      url: `/api/webhooks/${res.json().data.id}/test`,
      headers: local.owner.headers,
    });
    await deliverDue(onPrem.deps);
    expect(receiver.received.length).toBe(before + 1);
  });

  it('does not follow a redirect to a private address', async () => {
    const inside = await startWebhookReceiver();
    try {
      receiver.respond(() => ({ status: 307, headers: { location: inside.url } }));
      const res = await create(onPrem, local, receiver.url);
      await onPrem.inject({
        method: 'POST',
        url: `/api/webhooks/${res.json().data.id}/test`,
        headers: local.owner.headers,
      });
      await deliverDue(onPrem.deps);
      expect(inside.received).toHaveLength(0);
      expect(await deliveryOf(onPrem, res.json().data.id)).toMatchObject({
        status: 'pending',
        responseStatus: 307,
      });
    } finally {
      receiver.respond(() => ({ status: 200, body: 'ok' }));
      await inside.close();
    }
  });
});
