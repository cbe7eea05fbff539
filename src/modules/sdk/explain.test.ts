import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { callAs, createTenant } from '../../../test/helpers/factories.js';
import {
  apiKeyOf,
  audience,
  dashboard,
  publishedContent,
  publishedFlow,
  SITE,
  sdkCall,
} from '../../../test/helpers/sdk.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Explained {
  url: string | null;
  endUserId: string;
  items: {
    kind: string;
    id: string;
    name: string;
    decision: string;
    reason: string | null;
    detail: string | null;
  }[];
}

const HOUR = 3_600_000;

describe('GET /api/end-users/:id/delivery', () => {
  it('explains every item with one reason code, by the session’s own decision', async () => {
    const start = Date.now();
    t.clock.set(start);
    try {
      const tenant = await createTenant(t);
      const sdk = sdkCall(t, await apiKeyOf(t, tenant));
      const explain = async (id: string, url?: string): Promise<Explained> => {
        const q = url === undefined ? '' : `?url=${encodeURIComponent(url)}`;
        const res = await callAs(t, tenant, 'GET', `/api/end-users/${encodeURIComponent(id)}/delivery${q}`);
        expect(res.statusCode, res.body).toBe(200);
        return res.json().data;
      };
      const reasonOf = (e: Explained, id: string) => {
        const item = e.items.find((i) => i.id === id);
        expect(item, id).toBeDefined();
        return item!;
      };
      const session = async (userId: string, url = 'https://app.test/home') =>
        (await sdk('POST', '/api/sdk/session', { userId, url })).json().data;

      const pro = await audience(t, tenant, { field: 'traits.plan', operator: 'eq', value: 'pro' });
      const top = await publishedFlow(t, tenant, { name: 'Top', priority: 10 });
      const next = await publishedFlow(t, tenant, { name: 'Next', priority: 5 });
      const elsewhere = await publishedFlow(t, tenant, {
        name: 'Elsewhere',
        trigger: { type: 'URL_MATCH', config: { pattern: '/billing' } },
      });
      const forPro = await publishedFlow(t, tenant, { name: 'Pro only', audienceId: pro });
      const draft = (
        await dashboard(t, tenant, 'POST', '/api/flows', { name: 'Draft', siteId: SITE, template: 'CUSTOM' })
      ).id;
      const later = (
        await dashboard(t, tenant, 'POST', '/api/content/announcements', {
          name: 'Later',
          siteId: SITE,
          type: 'BANNER',
          content: { title: 'Soon' },
          scheduledAt: new Date(start + 10 * 86_400_000).toISOString(),
        })
      ).id;
      const expiring = await publishedContent(t, tenant, 'announcements', {
        name: 'Expiring',
        siteId: SITE,
        type: 'BANNER',
        content: { title: 'Sale' },
        expiresAt: new Date(start + HOUR).toISOString(),
      });
      const done = await publishedFlow(t, tenant, { name: 'Done' });
      const closed = await publishedFlow(t, tenant, { name: 'Closed' });

      // The user exists (a session), completed one flow and dismissed another.
      const first = await session('ada');
      await sdk('POST', '/api/sdk/events', {
        events: [
          { type: 'FLOW_COMPLETED', userId: 'ada', properties: { flowId: done } },
          { type: 'FLOW_DISMISSED', userId: 'ada', properties: { flowId: closed } },
        ],
      });
      await t.processEvents();
      t.clock.set(start + 2 * HOUR);

      // No policy: by userId and by service id alike.
      const byUserId = await explain('ada', 'https://app.test/home');
      expect(await explain(first.endUserId, 'https://app.test/home')).toEqual(byUserId);
      expect(byUserId).toMatchObject({ url: 'https://app.test/home', endUserId: first.endUserId });
      expect(reasonOf(byUserId, top)).toMatchObject({
        name: 'Top',
        kind: 'flow',
        decision: 'SHOWN',
        reason: null,
      });
      expect(reasonOf(byUserId, next)).toMatchObject({ decision: 'SHOWN' });
      expect(reasonOf(byUserId, elsewhere)).toMatchObject({ decision: 'SUPPRESSED', reason: 'URL_MISMATCH' });
      expect(reasonOf(byUserId, forPro)).toMatchObject({
        reason: 'AUDIENCE_MISMATCH',
        detail: expect.stringContaining('traits.plan eq'),
      });
      expect(reasonOf(byUserId, draft)).toMatchObject({ reason: 'NOT_PUBLISHED', detail: 'status DRAFT' });
      expect(reasonOf(byUserId, later)).toMatchObject({ kind: 'content', reason: 'SCHEDULED' });
      expect(reasonOf(byUserId, expiring)).toMatchObject({ reason: 'EXPIRED' });
      expect(reasonOf(byUserId, done)).toMatchObject({ reason: 'ALREADY_COMPLETED' });
      expect(reasonOf(byUserId, closed)).toMatchObject({ reason: 'DISMISSED' });
      expect(byUserId.items).toHaveLength(9);
      // The session serves exactly the SHOWN set.
      const served = await session('ada');
      const shown = byUserId.items.filter((i) => i.decision === 'SHOWN').map((i) => i.id);
      expect(served.flows.map((f: { id: string }) => f.id).sort()).toEqual(shown.sort());

      // With a policy: one flow per session and a cooldown.
      await dashboard(t, tenant, 'PUT', '/api/delivery-policy', {
        caps: [{ scope: 'flows', max: 1, per: 'session' }],
        cooldownSeconds: 600,
      });
      const capped = await explain('ada', 'https://app.test/home');
      expect(reasonOf(capped, top)).toMatchObject({ decision: 'SHOWN' });
      expect(reasonOf(capped, next)).toMatchObject({ reason: 'LOWER_PRIORITY' });
      // explaining writes nothing: the next session still serves `top`
      expect((await session('ada')).flows.map((f: { id: string }) => f.id)).toEqual([top]);
      // `top` was just served: another user-visible flow must wait for the cooldown
      await dashboard(t, tenant, 'PATCH', `/api/flows/${top}`, { priority: 0 });
      const cooling = await explain('ada', 'https://app.test/home');
      expect(reasonOf(cooling, next)).toMatchObject({ reason: 'COOLDOWN' });

      await dashboard(t, tenant, 'PUT', '/api/delivery-policy', {
        caps: [{ scope: 'all', max: 1, per: 'day' }],
      });
      const full = await explain('ada', 'https://app.test/home');
      expect(reasonOf(full, next)).toMatchObject({ reason: 'CAPPED', detail: '1 per day (all)' });
      expect(reasonOf(full, top)).toMatchObject({ decision: 'SHOWN' });
    } finally {
      t.clock.reset();
    }
  });

  it("answers 404 for an unknown end user and another tenant's; 401 without a token", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const sdk = sdkCall(t, await apiKeyOf(t, other));
    const theirs = (await sdk('POST', '/api/sdk/session', { userId: 'bob' })).json().data.endUserId;
    expectError(await callAs(t, tenant, 'GET', `/api/end-users/${theirs}/delivery`), 404, 'NOT_FOUND');
    expectError(await callAs(t, tenant, 'GET', '/api/end-users/bob/delivery'), 404, 'NOT_FOUND');
    expect((await callAs(t, other, 'GET', '/api/end-users/bob/delivery')).statusCode).toBe(200);
    expectError(await t.inject({ method: 'GET', url: '/api/end-users/bob/delivery' }), 401, 'AUTH_NO_TOKEN');
  });
});
