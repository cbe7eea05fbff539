import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import { deliverDue } from './delivery-job.js';
import { emitWebhookEvents } from './outbox.js';

/**
 * How fast the delivery job empties the outbox to a local receiver in this process (printed, not
 * asserted: the figure depends on the machine's load; the receiver shares the event loop).
 */

let t: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await createTestApp({
    config: { webhooks: { allowPrivate: true, retryBaseMs: 1000, retryMaxMs: 3_600_000, timeoutMs: 5_000 } },
  });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('delivery throughput', () => {
  it('delivers 1,000 messages to a local receiver', async () => {
    const tenant = await createTenant(t);
    const res = await t.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: tenant.owner.headers,
      payload: { url: receiver.url, events: ['flow.completed'] },
    });
    expect(res.statusCode).toBe(201);
    const N = 1_000;
    const now = new Date();
    await t.deps.database.db.transaction((tx) =>
      emitWebhookEvents(
        tx,
        Array.from({ length: N }, (_, i) => ({
          tenantId: tenant.tenantId,
          type: 'flow.completed' as const,
          data: { flowId: 'f', userId: `u-${i}` },
        })),
        { now },
      ),
    );
    const started = performance.now();
    const sent = await deliverDue(t.deps);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `webhook deliveries (${t.deps.database.kind}): ${N} in ${seconds.toFixed(2)} s = ${Math.round(N / seconds)}/s`,
    );
    expect(sent).toBe(N);
    expect(receiver.received).toHaveLength(N);
  }, 120_000);
});
