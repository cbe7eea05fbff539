import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverDatabaseUrl } from './helpers/database.js';
import { startServer } from './helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from './helpers/standalone.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

/**
 * At least once: the server is killed with SIGKILL while its deliveries wait on the receiver.
 * After a restart, once the leases run out, every message is delivered, each with the webhook-id
 * it had before the crash.
 */
let store: StandaloneStore;
let receiver: WebhookReceiver;
const MESSAGES = 20;

beforeAll(async () => {
  store = await createStandaloneStore({
    serverUrl: serverDatabaseUrl(),
    env: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_GLOBAL: '0',
      RATE_LIMIT_ADMIN_WRITE: '0',
      RATE_LIMIT_ADMIN_READ: '0',
      REDIS_URL: '',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  receiver = await startWebhookReceiver();
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await store?.destroy();
});

describe('a crash mid-delivery', () => {
  it('loses no delivery: each is sent again after the restart with the same webhook-id', async () => {
    const first = await startServer(store.env);
    const headers = { authorization: `Bearer ${store.ownerToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${first.url}/api/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, events: ['flow.published'] }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const hook = (await created.json()).data as { id: string };
    receiver.hang(); // every attempt waits on the receiver: the server is mid-delivery
    for (let i = 0; i < MESSAGES; i++) {
      const res = await fetch(`${first.url}/api/webhooks/${hook.id}/test`, { method: 'POST', headers });
      expect(res.status).toBe(202);
    }
    await expect.poll(() => receiver.received.length, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const beforeCrash = receiver.received.map((r) => String(r.headers['webhook-id']));
    receiver.respond(() => ({ status: 200, body: 'ok' }));
    receiver.release();

    const restartedAt = Date.now();
    const second = await startServer(store.env);
    try {
      const afterRestart = () =>
        new Set(
          receiver.received.filter((r) => r.at >= restartedAt).map((r) => String(r.headers['webhook-id'])),
        );
      await expect.poll(() => afterRestart().size, { timeout: 60_000, interval: 100 }).toBe(MESSAGES);
      // the messages in flight at the crash came again with the same webhook-id
      for (const id of beforeCrash) expect(afterRestart().has(id)).toBe(true);
      const res = await fetch(`${second.url}/api/webhooks/${hook.id}/deliveries?limit=100`, { headers });
      const { data } = (await res.json()) as {
        data: { status: string; messageId: string; attempts: number }[];
      };
      await expect
        .poll(
          async () => {
            const again = await fetch(`${second.url}/api/webhooks/${hook.id}/deliveries?limit=100`, {
              headers,
            });
            return ((await again.json()).data as { status: string }[]).filter((d) => d.status === 'delivered')
              .length;
          },
          { timeout: 10_000 },
        )
        .toBe(MESSAGES);
      expect(data).toHaveLength(MESSAGES);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  }, 180_000);
});
