import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { callAs, createTenant } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard, publishedFlow, SITE, sdkCall } from '../../../test/helpers/sdk.js';

/**
 * A journey's CONTENT step serves its item at the item's own priority unless the node sets one
 * (issue 38, docs/delivery-policy.md): the delivery policy then orders the item by the node's.
 * Through HTTP on both databases, with the node priority of the version the enrollment runs.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const at = { x: 0, y: 0 };
const URL = 'https://app.example.com/home';

function canvas(flowId: string, ids: { trigger: string; content: string; exit: string }, priority?: number) {
  return {
    nodes: [
      {
        id: ids.trigger,
        type: 'TRIGGER',
        config: { triggerType: 'MANUAL', triggerConfig: {} },
        position: at,
      },
      {
        id: ids.content,
        type: 'CONTENT',
        config: { contentType: 'flow', ...(priority === undefined ? {} : { priority }) },
        contentId: flowId,
        position: at,
      },
      { id: ids.exit, type: 'EXIT', config: {}, position: at },
    ],
    edges: [
      { sourceNodeId: ids.trigger, targetNodeId: ids.content },
      { sourceNodeId: ids.content, targetNodeId: ids.exit },
    ],
  };
}

describe('priority on journey CONTENT nodes', () => {
  it('validates the priority: an integer within ±1,000,000, optional', async () => {
    const tenant = await createTenant(t);
    const flow = await publishedFlow(t, tenant);
    const ids = { trigger: randomUUID(), content: randomUUID(), exit: randomUUID() };
    for (const bad of [1.5, 1_000_001, -1_000_001, '3']) {
      const res = await callAs(t, tenant, 'POST', '/api/journeys', {
        name: 'J',
        siteId: SITE,
        ...canvas(flow, ids, bad as number),
      });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect((error.details as { path: string }[]).map((d) => d.path)).toContain('nodes.1.config.priority');
    }
    const ok = await dashboard(t, tenant, 'POST', '/api/journeys', {
      name: 'J',
      siteId: SITE,
      ...canvas(flow, ids, -5),
    });
    expect(ok.nodes[1].config).toEqual({ contentType: 'flow', priority: -5 });
  });

  it("serves the item at the node's priority when the journey brings it (the enrollment's version decides)", async () => {
    const tenant = await createTenant(t);
    const sdk = sdkCall(t, await apiKeyOf(t, tenant));
    await dashboard(t, tenant, 'PUT', '/api/delivery-policy', {
      caps: [{ scope: 'all', max: 1, per: 'session' }],
    });
    const rival = await publishedFlow(t, tenant, { name: 'Rival', priority: 5 });
    // Shown only through the journey (a draft on its own), at its own priority 0.
    const step = (
      await dashboard(t, tenant, 'POST', '/api/flows', {
        name: 'Journey step',
        siteId: SITE,
        template: 'CUSTOM',
        steps: [{ type: 'MODAL', content: { title: 'Hi' } }],
      })
    ).id as string;
    const ids = { trigger: randomUUID(), content: randomUUID(), exit: randomUUID() };
    const journey = await dashboard(t, tenant, 'POST', '/api/journeys', {
      name: 'J',
      siteId: SITE,
      ...canvas(step, ids),
    });
    await dashboard(t, tenant, 'POST', `/api/journeys/${journey.id}/publish`);
    const session = async (userId: string) => {
      const res = await sdk('POST', '/api/sdk/session', { userId, url: URL });
      expect(res.statusCode, res.body).toBe(201);
      await t.processEvents();
      const data = res.json().data as { flows: { id: string }[]; journeys: { contentId: string }[] };
      return { flows: data.flows.map((f) => f.id), journeys: data.journeys.map((j) => j.contentId) };
    };
    const enroll = async (userId: string) => {
      await session(userId); // the SDK has seen them
      expect(
        (await callAs(t, tenant, 'POST', `/api/journeys/${journey.id}/enrollments`, { userId })).statusCode,
      ).toBe(201);
    };

    // Version 1: the node sets no priority, the item's own (0) loses the one slot to the rival (5).
    await enroll('before');
    expect(await session('before')).toEqual({ flows: [rival], journeys: [] });

    // Version 2: the node's priority 10 wins the slot for enrollments that run it.
    const v2 = canvas(step, ids, 10);
    await dashboard(t, tenant, 'PUT', `/api/journeys/${journey.id}/canvas`, v2);
    expect((await dashboard(t, tenant, 'POST', `/api/journeys/${journey.id}/publish`)).version).toBe(2);
    await enroll('after');
    expect(await session('after')).toEqual({ flows: [step], journeys: [step] });
    // "before" keeps version 1, whose node sets no priority.
    expect(await session('before')).toEqual({ flows: [rival], journeys: [] });

    // The explanation is the same decision.
    const explained = (
      await dashboard(t, tenant, 'GET', `/api/end-users/after/delivery?url=${encodeURIComponent(URL)}`)
    ).items as { id: string; decision: string; reason: string | null }[];
    expect(explained.find((i) => i.id === step)).toMatchObject({ decision: 'SHOWN' });
    expect(explained.find((i) => i.id === rival)).toMatchObject({
      decision: 'SUPPRESSED',
      reason: 'LOWER_PRIORITY',
    });
  });
});
