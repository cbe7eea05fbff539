import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTenant } from './helpers/factories.js';

/** Every effect together, with several processors at once over batches that share end users. */
let t: TestApp;
let key: string;
let tenantId: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenant(t);
  tenantId = tenant.tenantId;
  const res = await t.inject({
    method: 'POST',
    url: '/api/tenants/api-keys',
    headers: tenant.owner.headers,
    payload: { name: 'k' },
  });
  key = res.json().data.key;
});
afterAll(() => t.close());

describe('concurrent processing with all effects', () => {
  it('processes every batch once, without failures, when processors share end users', async () => {
    const flowId = '0190f3a2-0000-7000-8000-00000000f10f';
    for (let b = 0; b < 40; b++) {
      const events = Array.from({ length: 25 }, (_, i) => {
        const user = (b * 7 + i) % 9;
        const common = { userId: `user-${user}`, anonymousId: `anon-${user}` };
        if (i % 5 === 0) return { ...common, type: 'FLOW_COMPLETED', properties: { flowId } };
        if (i % 5 === 1) return { ...common, type: 'STEP_VIEWED', properties: { flowId, stepIndex: i % 3 } };
        if (i % 5 === 2)
          return { anonymousId: `anon-only-${user}`, type: 'PAGE_VIEW', url: 'https://x.test/a' };
        return {
          ...common,
          type: 'CLICK',
          url: 'https://x.test/a',
          properties: { x: i, y: b, selector: '#a' },
        };
      });
      const res = await t.inject({
        method: 'POST',
        url: '/api/sdk/events',
        headers: { 'x-api-key': key },
        payload: { events },
      });
      expect(res.statusCode).toBe(202);
    }
    const second = await createTestApp({ db: t.db });
    try {
      await Promise.all([
        t.processEvents(undefined, { maxBatches: 3 }),
        second.processEvents(undefined, { maxBatches: 4 }),
        t.processEvents(undefined, { maxBatches: 5 }),
      ]);
    } finally {
      await second.close();
    }
    const [stats] = await t.deps.database.query<{ total: number; pending: number; failed: number }>(
      `select count(*)::int as total,
              count(*) filter (where processed_at is null)::int as pending,
              count(*) filter (where last_error is not null)::int as failed
       from event_batches where tenant_id = $1`,
      [tenantId],
    );
    expect(stats).toEqual({ total: 40, pending: 0, failed: 0 });
    const [counts] = await t.deps.database.query<{ events: number }>(
      'select coalesce(sum(events), 0)::int as events from analytics_daily_events where tenant_id = $1',
      [tenantId],
    );
    expect(counts!.events).toBe(40 * 25);
  });
});
