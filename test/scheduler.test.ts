import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../src/db/schema/index.js';
import type { AppDeps } from '../src/deps.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTenant, type TenantFixture } from './helpers/factories.js';

/**
 * The background jobs of DECISIONS §6 (the flows' and the content's scheduled moves), driven by
 * an injectable clock.
 */
const SCHEDULE_JOBS = ['flow-schedule', 'content-schedule'];
const scheduleJobs = (deps: AppDeps) => deps.modules.jobs.filter((job) => SCHEDULE_JOBS.includes(job.name));
const schedulerWorker = {
  async run(deps: AppDeps) {
    for (const job of scheduleJobs(deps)) await job.run(deps);
  },
};
let t: TestApp;
let tenant: TenantFixture;
const siteId = '0190f3a2-0000-7000-8000-0000000000aa';
const HOUR = 3_600_000;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const api = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
  const res = await t.inject({ method, url, headers: tenant.owner.headers, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};

async function scheduledFlow(start: number, expires?: number) {
  const flow = await api('POST', '/api/flows', {
    name: 'Later',
    siteId,
    template: 'PRODUCT_TOUR',
    scheduledAt: new Date(start).toISOString(),
    ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
  });
  expect((await api('POST', `/api/flows/${flow.id}/publish`)).status).toBe('SCHEDULED');
  return flow.id as string;
}

async function scheduledAnnouncement(start: number, expires?: number) {
  const item = await api('POST', '/api/content/announcements', {
    name: 'Launch',
    siteId,
    type: 'BANNER',
    content: { title: 'Soon' },
    scheduledAt: new Date(start).toISOString(),
    ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
  });
  expect(item.status).toBe('SCHEDULED');
  return item.id as string;
}

const flowStatus = async (id: string) => (await api('GET', `/api/flows/${id}`)).status;
const announcementStatus = async (id: string) =>
  (await api('GET', `/api/content/announcements/${id}`)).status;

describe('the scheduler', () => {
  it('publishes SCHEDULED flows and announcements at scheduledAt, not before', async () => {
    const now = Date.now();
    t.clock.set(now);
    const flow = await scheduledFlow(now + HOUR);
    const announcement = await scheduledAnnouncement(now + HOUR);

    t.clock.set(now + HOUR - 1000);
    await schedulerWorker.run(t.deps);
    expect(await flowStatus(flow)).toBe('SCHEDULED');
    expect(await announcementStatus(announcement)).toBe('SCHEDULED');

    t.clock.set(now + HOUR + 1000);
    await schedulerWorker.run(t.deps);
    expect(await flowStatus(flow)).toBe('PUBLISHED');
    expect(await announcementStatus(announcement)).toBe('PUBLISHED');
    t.clock.reset();
  });

  it('archives what passed expiresAt', async () => {
    const now = Date.now();
    t.clock.set(now);
    const flow = await scheduledFlow(now + HOUR, now + 2 * HOUR);
    const announcement = await scheduledAnnouncement(now + HOUR, now + 2 * HOUR);
    t.clock.set(now + HOUR + 1);
    await schedulerWorker.run(t.deps);
    expect(await flowStatus(flow)).toBe('PUBLISHED');
    t.clock.set(now + 2 * HOUR + 1);
    await schedulerWorker.run(t.deps);
    expect(await flowStatus(flow)).toBe('ARCHIVED');
    expect(await announcementStatus(announcement)).toBe('ARCHIVED');
    t.clock.reset();
  });

  it('archives, never publishes, what is past both dates', async () => {
    const now = Date.now();
    t.clock.set(now);
    const flow = await scheduledFlow(now + HOUR, now + 2 * HOUR);
    t.clock.set(now + 3 * HOUR);
    await schedulerWorker.run(t.deps);
    expect(await flowStatus(flow)).toBe('ARCHIVED');
    const published = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.entityId, flow), eq(auditLogs.action, 'FLOW_PUBLISHED')));
    expect(published).toHaveLength(1); // the manual publish that scheduled it, no automatic one
    t.clock.reset();
  });

  it('changes each row once when several instances run it at the same time', async () => {
    const now = Date.now();
    t.clock.set(now);
    const flows = await Promise.all([1, 2, 3].map(() => scheduledFlow(now + HOUR)));
    const second = await createTestApp({ db: t.db });
    try {
      t.clock.set(now + HOUR + 1);
      second.clock.set(now + HOUR + 1);
      await Promise.all([
        schedulerWorker.run(t.deps),
        schedulerWorker.run(second.deps),
        schedulerWorker.run(t.deps),
      ]);
      for (const id of flows) {
        expect(await flowStatus(id)).toBe('PUBLISHED');
        const automatic = await t.deps.database.db
          .select()
          .from(auditLogs)
          .where(and(eq(auditLogs.entityId, id), eq(auditLogs.action, 'FLOW_PUBLISHED')));
        expect(automatic).toHaveLength(2); // the manual publish (→ SCHEDULED) and one automatic
      }
    } finally {
      await second.close();
      t.clock.reset();
    }
  });

  it('runs by itself among the background workers', async () => {
    const now = Date.now();
    t.clock.set(now);
    const flow = await scheduledFlow(now + HOUR);
    t.clock.set(now + HOUR + 1);
    const workers = t.startWorkers(scheduleJobs(t.deps).map((job) => ({ ...job, intervalMs: 50 })));
    try {
      await expect.poll(() => flowStatus(flow), { timeout: 5000, interval: 100 }).toBe('PUBLISHED');
    } finally {
      await workers.stop();
      t.clock.reset();
    }
  });
});
