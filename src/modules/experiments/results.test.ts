import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard, publishedFlow, sdkCall } from '../../../test/helpers/sdk.js';
import { sqlRows } from '../../db/raw.js';
import { chooseExperiments, loadRunningExperiments, rememberAssignments } from './delivery-contributor.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const process = () => t.processEvents();

interface Experiment {
  id: string;
  variants: { id: string; name: string; flowId: string | null }[];
}

async function started(tenant: TenantFixture, variants: unknown[], extra: Record<string, unknown> = {}) {
  const exp = await dashboard(t, tenant, 'POST', '/api/experiments', { name: 'Stats', variants, ...extra });
  await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/start`);
  return exp as Experiment;
}

const fiftyFifty = [
  { name: 'Control', splitPercentage: 50 },
  { name: 'B', splitPercentage: 50 },
];

/**
 * `n` assignments to `variantId`, the first `x` converted, assigned on `day` (converted the
 * same day unless `convertedDay`), seeded in SQL with their own end users.
 */
async function seed(
  tenantId: string,
  exp: string,
  variantId: string,
  n: number,
  x: number,
  day = '2030-03-01',
  convertedDay = day,
) {
  await t.deps.database.db.execute(sql`
    with u as (
      insert into end_users (id, tenant_id, external_id, traits)
      select gen_random_uuid(), ${tenantId}, 'seed-' || gen_random_uuid(), '{}' from generate_series(1, ${n})
      returning id
    ), numbered as (select id, row_number() over () as i from u)
    insert into experiment_assignments (experiment_id, end_user_id, tenant_id, variant_id, assigned_at, converted_at)
    select ${exp}, id, ${tenantId}, ${variantId}, ${`${day}T12:00:00Z`}::timestamptz,
           case when i <= ${x} then ${`${convertedDay}T13:00:00Z`}::timestamptz end
    from numbered`);
}

describe('EXPERIMENT_CONVERSION', () => {
  it('counts once per assigned user; a disagreeing variantId, an unassigned user and another tenant count nothing', async () => {
    const tenant = await createTenant(t);
    const sdk = sdkCall(t, await apiKeyOf(t, tenant));
    const flow = await publishedFlow(t, tenant);
    const exp = await started(tenant, [
      { name: 'Control', splitPercentage: 50, flowId: flow },
      { name: 'B', splitPercentage: 50 },
    ]);
    const assign = async (body: Record<string, unknown>) =>
      (await sdk('POST', '/api/sdk/session', body)).json().data.experiments[0] as { variantId: string };
    const alice = await assign({ userId: 'alice' });
    const bob = await assign({ userId: 'bob' });
    const anon = await assign({ anonymousId: 'visitor' });
    const otherVariant = (v: string) => exp.variants.find((x) => x.id !== v)!.id;
    const conversion = (who: Record<string, unknown>, properties: Record<string, unknown>) => ({
      type: 'EXPERIMENT_CONVERSION',
      ...who,
      properties: { experimentId: exp.id, ...properties },
    });
    const sent = await sdk('POST', '/api/sdk/events', {
      events: [
        conversion({ userId: 'alice' }, {}),
        conversion({ userId: 'alice' }, { variantId: alice.variantId }),
        conversion({ userId: 'bob' }, { variantId: otherVariant(bob.variantId) }),
        conversion({ anonymousId: 'visitor' }, { variantId: anon.variantId }),
        conversion({ userId: 'never-seen' }, {}),
        conversion({ userId: 'alice' }, { experimentId: 'not-an-id' }),
      ],
    });
    expect(sent.statusCode).toBe(202);
    await process();
    // alice converts again in a later batch: still once
    await sdk('POST', '/api/sdk/events', { events: [conversion({ userId: 'alice' }, {})] });
    // another tenant's user sends a conversion naming this experiment
    const other = await createTenant(t);
    const otherSdk = sdkCall(t, await apiKeyOf(t, other));
    await otherSdk('POST', '/api/sdk/session', { userId: 'alice' });
    await otherSdk('POST', '/api/sdk/events', { events: [conversion({ userId: 'alice' }, {})] });
    await process();

    const results = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    const total = (key: 'sampleSize' | 'conversions') =>
      results.variants.reduce((s: number, v: Record<string, number>) => s + v[key]!, 0);
    expect(total('sampleSize')).toBe(3);
    expect(total('conversions')).toBe(2);
    const rows = await sqlRows<{
      external_id: string | null;
      anonymous_id: string | null;
      converted: boolean;
    }>(
      t.deps.database.db,
      sql`select u.external_id, u.anonymous_id, a.converted_at is not null as converted
          from experiment_assignments a join end_users u on u.id = a.end_user_id
          where a.experiment_id = ${exp.id} order by u.external_id nulls last`,
    );
    expect(rows.map((r) => [r.external_id ?? r.anonymous_id, r.converted])).toEqual([
      ['alice', true],
      ['bob', false],
      ['visitor', true],
    ]);
    // bob's disagreeing event did not block a later agreeing one
    await sdk('POST', '/api/sdk/events', {
      events: [conversion({ userId: 'bob' }, { variantId: bob.variantId })],
    });
    await process();
    const after = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(after.variants.reduce((s: number, v: { conversions: number }) => s + v.conversions, 0)).toBe(3);
  });
});

describe('conversion time', () => {
  it('is the event time, never before the assignment (a client clock behind the server)', async () => {
    const tenant = await createTenant(t);
    const sdk = sdkCall(t, await apiKeyOf(t, tenant));
    t.clock.set(Date.parse('2030-06-10T09:00:00Z'));
    try {
      const exp = await started(tenant, fiftyFifty);
      await sdk('POST', '/api/sdk/session', { userId: 'early' });
      await sdk('POST', '/api/sdk/session', { userId: 'later' });
      await sdk('POST', '/api/sdk/events', {
        events: [
          {
            type: 'EXPERIMENT_CONVERSION',
            userId: 'early',
            timestamp: '2030-06-08T09:00:00Z',
            properties: { experimentId: exp.id },
          },
          {
            type: 'EXPERIMENT_CONVERSION',
            userId: 'later',
            timestamp: '2030-06-10T09:02:00Z',
            properties: { experimentId: exp.id },
          },
        ],
      });
      await process();
      const rows = await sqlRows<{ converted_at: Date | string }>(
        t.deps.database.db,
        sql`select converted_at from experiment_assignments where experiment_id = ${exp.id} order by converted_at`,
      );
      expect(rows.map((r) => new Date(r.converted_at).toISOString())).toEqual([
        '2030-06-10T09:00:00.000Z',
        '2030-06-10T09:02:00.000Z',
      ]);
    } finally {
      t.clock.reset();
    }
  });
});

describe('POST /api/experiments/:id/compute-results', () => {
  it('answers 200 with nulls, not NaN, for an experiment without data (draft, no variants, one-sided)', async () => {
    const tenant = await createTenant(t);
    const empty = await dashboard(t, tenant, 'POST', '/api/experiments', { name: 'Empty' });
    const none = await dashboard(t, tenant, 'POST', `/api/experiments/${empty.id}/compute-results`);
    expect(none).toMatchObject({
      experimentId: empty.id,
      status: 'draft',
      variants: [],
      srm: { pValue: null, mismatch: false },
    });

    const exp = await started(tenant, fiftyFifty);
    const fresh = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(fresh.variants).toEqual([
      {
        variantId: exp.variants[0]!.id,
        variantName: 'Control',
        sampleSize: 0,
        conversions: 0,
        conversionRate: 0,
        isControl: true,
        lift: null,
        pValue: null,
        probabilityToBeatControl: null,
        sequential: null,
      },
      {
        variantId: exp.variants[1]!.id,
        variantName: 'B',
        sampleSize: 0,
        conversions: 0,
        conversionRate: 0,
        isControl: false,
        lift: null,
        pValue: null,
        probabilityToBeatControl: null,
        sequential: null,
      },
    ]);
    expect(fresh.srm).toEqual({ pValue: null, mismatch: false });

    // only the variant has participants; then a control with a 0 rate: lift null, the rest finite
    await seed(tenant.tenantId, exp.id, exp.variants[1]!.id, 10, 3);
    const oneSided = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(oneSided.variants[1]).toMatchObject({
      sampleSize: 10,
      conversions: 3,
      conversionRate: 0.3,
      lift: null,
      pValue: null,
    });
    await seed(tenant.tenantId, exp.id, exp.variants[0]!.id, 10, 0);
    const zeroControl = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    const b = zeroControl.variants[1];
    expect(b.lift).toBeNull();
    expect(Number.isFinite(b.pValue)).toBe(true);
    expect(b.probabilityToBeatControl).toBeGreaterThan(0.9);
    expect(b.sequential).toEqual({
      ciLow: expect.any(Number),
      ciHigh: expect.any(Number),
      significant: expect.any(Boolean),
    });
    expect(zeroControl.srm).toEqual({ pValue: 1, mismatch: false });
  });

  it('reports the textbook numbers for 200/1000 vs 250/1000', async () => {
    const tenant = await createTenant(t);
    const exp = await started(tenant, fiftyFifty);
    await seed(tenant.tenantId, exp.id, exp.variants[0]!.id, 1000, 200);
    await seed(tenant.tenantId, exp.id, exp.variants[1]!.id, 1000, 250);
    const r = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(r.variants[0]).toMatchObject({
      isControl: true,
      sampleSize: 1000,
      conversions: 200,
      conversionRate: 0.2,
      lift: null,
    });
    const b = r.variants[1];
    expect(b).toMatchObject({ isControl: false, sampleSize: 1000, conversions: 250, conversionRate: 0.25 });
    expect(b.pValue).toBeCloseTo(0.00742, 4);
    expect(b.lift.estimate).toBeCloseTo(0.25, 10);
    expect(b.lift.ciLow).toBeCloseTo(0.045, 2);
    expect(b.lift.ciHigh).toBeCloseTo(0.455, 2);
    expect(b.probabilityToBeatControl).toBeGreaterThan(0.99);
    expect(b.sequential.ciLow).toBeLessThan(0.05);
    expect(b.sequential.ciHigh).toBeGreaterThan(0.05);
    expect(r.srm).toEqual({ pValue: 1, mismatch: false });
    expect(r.computedAt).toEqual(expect.any(String));
  });

  it('flags a sample-ratio mismatch', async () => {
    const tenant = await createTenant(t);
    const exp = await started(tenant, fiftyFifty);
    await seed(tenant.tenantId, exp.id, exp.variants[0]!.id, 600, 0);
    await seed(tenant.tenantId, exp.id, exp.variants[1]!.id, 400, 0);
    const r = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(r.srm.mismatch).toBe(true);
    expect(r.srm.pValue).toBeLessThan(0.001);
  });
});

describe('GET /api/experiments/:id/results', () => {
  it('gives per-variant totals and a daily cumulative series from the first day to today', async () => {
    const tenant = await createTenant(t);
    t.clock.set(Date.parse('2030-03-01T08:00:00Z'));
    try {
      const exp = await started(tenant, [
        { name: 'Control', splitPercentage: 40 },
        { name: 'B', splitPercentage: 60 },
      ]);
      const [c, b] = exp.variants;
      await seed(tenant.tenantId, exp.id, c!.id, 4, 1, '2030-03-01');
      await seed(tenant.tenantId, exp.id, c!.id, 2, 2, '2030-03-03', '2030-03-04');
      await seed(tenant.tenantId, exp.id, b!.id, 5, 0, '2030-03-02');
      t.clock.set(Date.parse('2030-03-04T20:00:00Z'));
      const r = await dashboard(t, tenant, 'GET', `/api/experiments/${exp.id}/results`);
      expect(r).toMatchObject({
        experimentId: exp.id,
        name: 'Stats',
        status: 'running',
        startDate: '2030-03-01T08:00:00.000Z',
        endDate: null,
      });
      expect(r.variants).toEqual([
        {
          variantId: c!.id,
          variantName: 'Control',
          splitPercentage: 40,
          participants: 6,
          conversions: 3,
          conversionRate: 0.5,
          results: [
            { date: '2030-03-01', participants: 4, conversions: 1 },
            { date: '2030-03-02', participants: 4, conversions: 1 },
            { date: '2030-03-03', participants: 6, conversions: 1 },
            { date: '2030-03-04', participants: 6, conversions: 3 },
          ],
        },
        {
          variantId: b!.id,
          variantName: 'B',
          splitPercentage: 60,
          participants: 5,
          conversions: 0,
          conversionRate: 0,
          results: [
            { date: '2030-03-01', participants: 0, conversions: 0 },
            { date: '2030-03-02', participants: 5, conversions: 0 },
            { date: '2030-03-03', participants: 5, conversions: 0 },
            { date: '2030-03-04', participants: 5, conversions: 0 },
          ],
        },
      ]);
      // stopped: the series ends the day it stopped
      await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/stop`);
      t.clock.set(Date.parse('2030-03-09T00:00:00Z'));
      const later = await dashboard(t, tenant, 'GET', `/api/experiments/${exp.id}/results`);
      expect(later.variants[0].results.at(-1)).toEqual({
        date: '2030-03-04',
        participants: 6,
        conversions: 3,
      });
    } finally {
      t.clock.reset();
    }
    const draft = await dashboard(t, tenant, 'POST', '/api/experiments', {
      name: 'Draft',
      variants: fiftyFifty,
    });
    const none = await dashboard(t, tenant, 'GET', `/api/experiments/${draft.id}/results`);
    expect(
      none.variants.map((v: { results: unknown[]; participants: number }) => [v.participants, v.results]),
    ).toEqual([
      [0, []],
      [0, []],
    ]);
  });
});

describe('split fidelity', () => {
  it("10,000 simulated users land within 2 points of each split, through the session's choice and store", async () => {
    const tenant = await createTenant(t);
    const splits = [20, 30, 50];
    const exp = await started(
      tenant,
      splits.map((p, i) => ({ name: `V${i}`, splitPercentage: p })),
    );
    const users = await sqlRows<{ id: string }>(
      t.deps.database.db,
      sql`insert into end_users (id, tenant_id, external_id, traits)
          select gen_random_uuid(), ${tenant.tenantId}, 'sim-' || i, '{}' from generate_series(1, 10000) i
          returning id`,
    );
    const running = await loadRunningExperiments(t.deps.database.db, tenant.tenantId);
    const entries = users.map((u) => ({
      tenantId: tenant.tenantId,
      endUserId: u.id,
      choice: chooseExperiments(running, null, {
        endUserId: u.id,
        nowMs: Date.now(),
        inAudience: () => true,
      }),
    }));
    for (let i = 0; i < entries.length; i += 2000)
      await rememberAssignments(t.deps.database.db, entries.slice(i, i + 2000));
    const r = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(r.variants.reduce((s: number, v: { sampleSize: number }) => s + v.sampleSize, 0)).toBe(10_000);
    r.variants.forEach((v: { sampleSize: number }, i: number) => {
      expect(Math.abs((v.sampleSize / 10_000) * 100 - splits[i]!)).toBeLessThan(2);
    });
    expect(r.srm.mismatch).toBe(false);
    // storing the same choices again changes nothing (idempotent)
    await rememberAssignments(t.deps.database.db, entries.slice(0, 500));
    const again = await dashboard(t, tenant, 'POST', `/api/experiments/${exp.id}/compute-results`);
    expect(again.variants.map((v: { sampleSize: number }) => v.sampleSize)).toEqual(
      r.variants.map((v: { sampleSize: number }) => v.sampleSize),
    );
  });
});
