import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard, publishedFlow, SITE, sdkCall } from '../../../test/helpers/sdk.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import { webhookDeliveries } from '../../db/schema/index.js';
import { deliverDue } from './delivery-job.js';

/** The event types other modules emit, each in the transaction of its change, end to end. */

let t: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await createTestApp({
    config: { webhooks: { allowPrivate: true, retryBaseMs: 20, retryMaxMs: 3_600_000, timeoutMs: 2_000 } },
  });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function subscribe(tenant: TenantFixture, events: string[]) {
  return (await dashboard(t, tenant, 'POST', '/api/webhooks', { url: receiver.url, events })) as {
    id: string;
    secret: string;
  };
}

/** Delivers what is due and answers the payloads this endpoint's secret verifies. */
async function received(secret: string) {
  await deliverDue(t.deps);
  const hook = new Webhook(secret);
  const out: { type: string; data: Record<string, unknown> }[] = [];
  for (const r of receiver.received) {
    try {
      out.push(
        hook.verify(r.body, {
          'webhook-id': String(r.headers['webhook-id']),
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        }) as { type: string; data: Record<string, unknown> },
      );
    } catch {
      // another endpoint's
    }
  }
  return out;
}

describe('emitted event types', () => {
  it('flow.published when a flow is published (not when it is only saved)', async () => {
    const tenant = await createTenant(t);
    const hook = await subscribe(tenant, ['flow.published']);
    const flowId = await publishedFlow(t, tenant, { name: 'Onboarding' });
    await dashboard(t, tenant, 'POST', '/api/flows', {
      name: 'Draft',
      siteId: SITE,
      template: 'CUSTOM',
      steps: [{ type: 'MODAL', content: { title: 'Hi' } }],
    });
    expect(await received(hook.secret)).toEqual([
      {
        type: 'flow.published',
        timestamp: expect.any(String),
        data: expect.objectContaining({ flowId, name: 'Onboarding', publishedBy: tenant.owner.userId }),
      },
    ]);
  });

  it('a failed change writes no outbox row (same transaction)', async () => {
    const tenant = await createTenant(t);
    await subscribe(tenant, ['flow.published']);
    const res = await t.inject({
      method: 'POST',
      url: '/api/flows/01900000-0000-7000-8000-000000000000/publish',
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(404);
    const rows = await t.deps.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.tenantId, tenant.tenantId));
    expect(rows).toEqual([]);
  });

  it('survey.responded for NPS and survey answers that were stored, not for those set aside', async () => {
    const tenant = await createTenant(t);
    const hook = await subscribe(tenant, ['survey.responded']);
    const survey = await dashboard(t, tenant, 'POST', '/api/content/surveys', {
      name: 'Feedback',
      siteId: SITE,
      questions: [{ key: 'why', type: 'TEXT', question: 'Why?', required: true }],
    });
    const nps = await dashboard(t, tenant, 'POST', '/api/nps-surveys', {
      name: 'NPS',
      siteId: SITE,
      question: 'Recommend us?',
    });
    const sdk = sdkCall(t, await apiKeyOf(t, tenant));
    const res = await sdk('POST', '/api/sdk/events', {
      events: [
        {
          type: 'SURVEY_RESPONSE',
          userId: 'u-1',
          properties: { surveyId: survey.id, answers: { why: 'fast' } },
        },
        { type: 'SURVEY_RESPONSE', userId: 'u-1', properties: { surveyId: survey.id, answers: {} } },
        {
          type: 'NPS_RESPONSE',
          userId: 'u-2',
          properties: { npsSurveyId: nps.id, score: 3, comment: 'slow' },
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.processEvents();
    const got = await received(hook.secret);
    expect(got.map((p) => p.data).sort((a, b) => String(a.kind).localeCompare(String(b.kind)))).toEqual([
      expect.objectContaining({ kind: 'nps', npsSurveyId: nps.id, score: 3, comment: 'slow', userId: 'u-2' }),
      expect.objectContaining({
        kind: 'survey',
        surveyId: survey.id,
        answers: { why: 'fast' },
        userId: 'u-1',
      }),
    ]);
  });

  it('journey.enrolled from an event, journey.exited from the timer that ends it', async () => {
    const tenant = await createTenant(t);
    const hook = await subscribe(tenant, ['journey.enrolled', 'journey.exited']);
    const at = { x: 0, y: 0 };
    const trigger = {
      id: randomUUID(),
      type: 'TRIGGER',
      config: { triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'go' } },
      position: at,
    };
    const wait = { id: randomUUID(), type: 'WAIT', config: { duration: 60_000 }, position: at };
    const exit = { id: randomUUID(), type: 'EXIT', config: {}, position: at };
    const journey = await dashboard(t, tenant, 'POST', '/api/journeys', {
      name: 'J',
      siteId: SITE,
      nodes: [trigger, wait, exit],
      edges: [
        { sourceNodeId: trigger.id, targetNodeId: wait.id },
        { sourceNodeId: wait.id, targetNodeId: exit.id },
      ],
    });
    await dashboard(t, tenant, 'POST', `/api/journeys/${journey.id}/publish`);
    const sdk = sdkCall(t, await apiKeyOf(t, tenant));
    await sdk('POST', '/api/sdk/events', { events: [{ type: 'CUSTOM', name: 'go', userId: 'u-9' }] });
    await t.processEvents();
    let got = await received(hook.secret);
    expect(got).toEqual([
      {
        type: 'journey.enrolled',
        timestamp: expect.any(String),
        data: expect.objectContaining({ journeyId: journey.id }),
      },
    ]);
    t.clock.set(Date.now() + 61_000);
    try {
      await t.runJob('journey-timers');
      got = await received(hook.secret);
    } finally {
      t.clock.reset();
    }
    expect(got.map((p) => p.type)).toEqual(['journey.enrolled', 'journey.exited']);
    expect(got[1]!.data).toMatchObject({
      journeyId: journey.id,
      status: 'completed',
      enrollmentId: got[0]!.data.enrollmentId,
    });
  });

  it("target.broken once, when most of the last hour's lookups of a step's selector fail", async () => {
    const tenant = await createTenant(t);
    const hook = await subscribe(tenant, ['target.broken']);
    const flowId = await publishedFlow(t, tenant, {
      steps: [{ type: 'TOOLTIP', targetSelector: '#save', content: { text: 'Save' } }],
    });
    const flow = await dashboard(t, tenant, 'GET', `/api/flows/${flowId}`);
    const stepId = flow.steps[0].id as string;
    const sdk = sdkCall(t, await apiKeyOf(t, tenant));
    const lookups = async (outcomes: string[], selector = '#save') => {
      const res = await sdk('POST', '/api/sdk/events', {
        events: outcomes.map((outcome) => ({
          type: 'TARGET_LOOKUP',
          anonymousId: 'anon-1',
          properties: { itemKind: 'flow', itemId: flowId, stepId, selector, outcome },
        })),
      });
      expect(res.statusCode, res.body).toBe(202);
      await t.processEvents();
      return (await received(hook.secret)).filter((p) => p.type === 'target.broken');
    };
    expect(await lookups(['found', 'found'])).toEqual([]);
    expect(await lookups(['missing', 'missing'])).toEqual([]); // 2 of 4: not most
    expect(await lookups(['missing', 'ambiguous', 'missing'])).toEqual([
      {
        type: 'target.broken',
        timestamp: expect.any(String),
        data: {
          itemKind: 'flow',
          itemId: flowId,
          stepId,
          targetSelector: '#save',
          lastHour: { found: 2, healed: 0, ambiguous: 1, missing: 4 },
          suggestedSelector: null,
        },
      },
    ]);
    // Still broken: nothing more. Another selector's lookups (not the step's) never count.
    expect(await lookups(['missing'])).toHaveLength(1);
    expect(await lookups(['missing', 'missing', 'missing'], '#old')).toHaveLength(1);
  });
});
