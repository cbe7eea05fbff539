import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, audience, dashboard, publishedFlow, sdkCall } from '../../../test/helpers/sdk.js';
import { sqlRows } from '../../db/raw.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Session {
  endUserId: string | null;
  flows: { id: string }[];
  experiments: { experimentId: string; variantId: string; flowId: string | null }[];
}

interface Setup {
  tenant: TenantFixture;
  sdk: ReturnType<typeof sdkCall>;
  session(body?: Record<string, unknown>): Promise<Session>;
  flows: { a: string; b: string; other: string };
}

async function setup(): Promise<Setup> {
  const tenant = await createTenant(t);
  const sdk = sdkCall(t, await apiKeyOf(t, tenant));
  const session = async (body: Record<string, unknown> = { userId: 'u-1' }) => {
    const res = await sdk('POST', '/api/sdk/session', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as Session;
  };
  const flows = {
    a: await publishedFlow(t, tenant, { name: 'Control tour' }),
    b: await publishedFlow(t, tenant, { name: 'New tour' }),
    other: await publishedFlow(t, tenant, { name: 'Unrelated' }),
  };
  return { tenant, sdk, session, flows };
}

async function runningExperiment(s: Setup, variants: unknown[], extra: Record<string, unknown> = {}) {
  const exp = await dashboard(t, s.tenant, 'POST', '/api/experiments', { name: 'Test', variants, ...extra });
  await dashboard(t, s.tenant, 'POST', `/api/experiments/${exp.id}/start`);
  return exp as { id: string; variants: { id: string; flowId: string | null }[] };
}

const abVariants = (s: Setup) => [
  { name: 'Control', splitPercentage: 50, flowId: s.flows.a },
  { name: 'B', splitPercentage: 50, flowId: s.flows.b },
];

const assignmentRows = (experimentId: string) =>
  sqlRows<{ end_user_id: string; variant_id: string }>(
    t.deps.database.db,
    sql`select end_user_id, variant_id from experiment_assignments where experiment_id = ${experimentId}`,
  );

describe('experiments in POST /api/sdk/session', () => {
  it("assigns at first exposure, lists the assignment and serves only the assigned variant's flow, stable across sessions", async () => {
    const s = await setup();
    const exp = await runningExperiment(s, abVariants(s));
    const seen = new Map<string, string>();
    for (let u = 0; u < 12; u++) {
      const first = await s.session({ userId: `user-${u}` });
      expect(first.experiments).toHaveLength(1);
      const [entry] = first.experiments;
      const variant = exp.variants.find((v) => v.id === entry!.variantId)!;
      expect(entry).toEqual({ experimentId: exp.id, variantId: variant.id, flowId: variant.flowId });
      const served = first.flows.map((f) => f.id).sort();
      const otherArm = variant.flowId === s.flows.a ? s.flows.b : s.flows.a;
      expect(served).toContain(variant.flowId);
      expect(served).not.toContain(otherArm);
      expect(served).toContain(s.flows.other);
      // the next sessions agree (read back from the stored assignment)
      for (let k = 0; k < 2; k++) {
        const again = await s.session({ userId: `user-${u}`, url: `https://app.example.com/${k}` });
        expect(again.experiments).toEqual(first.experiments);
        expect(again.flows.map((f) => f.id).sort()).toEqual(served);
      }
      seen.set(first.endUserId!, variant.id);
    }
    // both arms got users, and each user has exactly the one stored row of their variant
    expect(new Set(seen.values()).size).toBe(2);
    const rows = await assignmentRows(exp.id);
    expect(new Map(rows.map((r) => [r.end_user_id, r.variant_id]))).toEqual(seen);
  });

  it('the stored assignment wins over the hash (never changed afterwards)', async () => {
    const s = await setup();
    const exp = await runningExperiment(s, abVariants(s));
    const first = await s.session({ userId: 'sticky' });
    const assigned = first.experiments[0]!.variantId;
    const other = exp.variants.find((v) => v.id !== assigned)!;
    await t.deps.database.db.execute(
      sql`update experiment_assignments set variant_id = ${other.id} where experiment_id = ${exp.id}`,
    );
    const again = await s.session({ userId: 'sticky' });
    expect(again.experiments).toEqual([{ experimentId: exp.id, variantId: other.id, flowId: other.flowId }]);
    expect(again.flows.map((f) => f.id)).toContain(other.flowId);
    expect(again.flows.map((f) => f.id)).not.toContain(first.experiments[0]!.flowId);
  });

  it("a holdout variant (no flow) sees none of the experiment's flows", async () => {
    const s = await setup();
    const exp = await runningExperiment(s, [
      { name: 'Control', splitPercentage: 0, flowId: s.flows.a },
      { name: 'B', splitPercentage: 0, flowId: s.flows.b },
      { name: 'Holdout', splitPercentage: 100, flowId: null },
    ]);
    const res = await s.session({ userId: 'held' });
    expect(res.experiments).toEqual([{ experimentId: exp.id, variantId: exp.variants[2]!.id, flowId: null }]);
    expect(res.flows.map((f) => f.id)).toEqual([s.flows.other]);
  });

  it("assigns only users in the experiment's audience; others get no assignment and none of its flows", async () => {
    const s = await setup();
    const pro = await audience(t, s.tenant, {
      logicalOperator: 'AND',
      rules: [{ field: 'traits.plan', operator: 'eq', value: 'pro' }],
    });
    const exp = await runningExperiment(s, abVariants(s), { audienceId: pro });
    await s.sdk('POST', '/api/sdk/identify', { userId: 'pro-user', traits: { plan: 'pro' } });
    await s.sdk('POST', '/api/sdk/identify', { userId: 'free-user', traits: { plan: 'free' } });

    const outsider = await s.session({ userId: 'free-user' });
    expect(outsider.experiments).toEqual([]);
    expect(outsider.flows.map((f) => f.id)).toEqual([s.flows.other]);
    const insider = await s.session({ userId: 'pro-user' });
    expect(insider.experiments).toHaveLength(1);
    // a session with no end user is never assigned either
    const nobody = await s.session({});
    expect(nobody.endUserId).toBeNull();
    expect(nobody.experiments).toEqual([]);
    expect(nobody.flows.map((f) => f.id)).toEqual([s.flows.other]);
    expect((await assignmentRows(exp.id)).map((r) => r.end_user_id)).toEqual([insider.endUserId]);

    // once assigned, leaving the audience does not unassign
    await s.sdk('POST', '/api/sdk/identify', { userId: 'pro-user', traits: { plan: 'free' } });
    expect((await s.session({ userId: 'pro-user' })).experiments).toEqual(insider.experiments);
  });

  it('one row and one variant under 20 concurrent first sessions of one user', async () => {
    const s = await setup();
    const exp = await runningExperiment(s, abVariants(s));
    const sessions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.session({ userId: 'burst', url: `https://x.test/${i}` })),
    );
    const variants = new Set(sessions.map((r) => r.experiments[0]?.variantId));
    expect(variants.size).toBe(1);
    expect(sessions.every((r) => r.experiments.length === 1)).toBe(true);
    const rows = await assignmentRows(exp.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.variant_id).toBe([...variants][0]);
  });

  it('stopped, ended and archived experiments do not take part: their flows are served by their own rules', async () => {
    const s = await setup();
    const exp = await runningExperiment(s, abVariants(s));
    const assigned = await s.session({ userId: 'before-stop' });
    expect(assigned.experiments).toHaveLength(1);
    await dashboard(t, s.tenant, 'POST', `/api/experiments/${exp.id}/stop`);
    for (const who of ['before-stop', 'after-stop']) {
      const res = await s.session({ userId: who });
      expect(res.experiments).toEqual([]);
      expect(res.flows.map((f) => f.id).sort()).toEqual([s.flows.a, s.flows.b, s.flows.other].sort());
    }
    // no new assignment while stopped; the existing one is kept and applies again on restart
    expect(await assignmentRows(exp.id)).toHaveLength(1);
    await dashboard(t, s.tenant, 'POST', `/api/experiments/${exp.id}/start`);
    expect((await s.session({ userId: 'before-stop' })).experiments).toEqual(assigned.experiments);

    // an endDate that has passed counts at once, before the completion job runs
    const now = Date.now();
    const ending = await dashboard(t, s.tenant, 'POST', '/api/experiments', {
      name: 'Ending',
      endDate: new Date(now + 60_000).toISOString(),
      variants: [
        { name: 'Control', splitPercentage: 50, flowId: s.flows.other },
        { name: 'Holdout', splitPercentage: 50 },
      ],
    });
    await dashboard(t, s.tenant, 'POST', `/api/experiments/${ending.id}/start`);
    expect((await s.session({ userId: 'late' })).experiments.map((e) => e.experimentId)).toContain(ending.id);
    t.clock.set(now + 61_000);
    try {
      const res = await s.session({ userId: 'late' });
      expect(res.experiments.map((e) => e.experimentId)).toEqual([exp.id]);
      expect(res.flows.map((f) => f.id)).toContain(s.flows.other);
    } finally {
      t.clock.reset();
    }
    await dashboard(t, s.tenant, 'DELETE', `/api/experiments/${exp.id}`);
    expect((await s.session({ userId: 'before-stop' })).experiments.map((e) => e.experimentId)).not.toContain(
      exp.id,
    );
  });

  it('several running experiments assign independently; identify carries an anonymous assignment over', async () => {
    const s = await setup();
    const one = await runningExperiment(s, abVariants(s));
    const two = await runningExperiment(s, [
      { name: 'Control', splitPercentage: 50, flowId: s.flows.other },
      { name: 'Holdout', splitPercentage: 50 },
    ]);
    const anon = await s.session({ anonymousId: 'anon-1' });
    expect(anon.experiments.map((e) => e.experimentId).sort()).toEqual([one.id, two.id].sort());
    const res = await s.sdk('POST', '/api/sdk/identify', { userId: 'known-1', anonymousId: 'anon-1' });
    expect(res.statusCode).toBeLessThan(300);
    const known = await s.session({ userId: 'known-1' });
    expect(known.experiments).toEqual(anon.experiments);
  });

  it("identify merging an assigned visitor into an assigned user keeps the user's variant, one row each", async () => {
    const s = await setup();
    const exp = await runningExperiment(s, abVariants(s));
    const known = await s.session({ userId: 'merge-known' });
    const visitor = await s.session({ anonymousId: 'merge-anon' });
    expect(visitor.endUserId).not.toBe(known.endUserId);
    const res = await s.sdk('POST', '/api/sdk/identify', {
      userId: 'merge-known',
      anonymousId: 'merge-anon',
    });
    expect(res.statusCode).toBeLessThan(300);
    expect((await s.session({ userId: 'merge-known' })).experiments).toEqual(known.experiments);
    const rows = await assignmentRows(exp.id);
    expect(rows.map((r) => r.end_user_id).sort()).toEqual([known.endUserId].sort());

    // a known user never exposed takes over the visitor's assignment
    await s.sdk('POST', '/api/sdk/identify', { userId: 'merge-new', traits: { plan: 'pro' } });
    const other = await s.session({ anonymousId: 'merge-anon-2' });
    const identified = await s.sdk('POST', '/api/sdk/identify', {
      userId: 'merge-new',
      anonymousId: 'merge-anon-2',
    });
    const mergedId = identified.json().data.id as string;
    expect(mergedId).not.toBe(other.endUserId);
    // moved by the merge itself, before any session of the identified user
    const moved = await assignmentRows(exp.id);
    expect(moved.find((r) => r.end_user_id === mergedId)?.variant_id).toBe(other.experiments[0]!.variantId);
    expect(moved.map((r) => r.end_user_id)).not.toContain(other.endUserId);
    expect((await s.session({ userId: 'merge-new' })).experiments).toEqual(other.experiments);
  });

  it('another tenant never sees or joins the experiment', async () => {
    const s = await setup();
    await runningExperiment(s, abVariants(s));
    const other = await setup();
    const res = await other.session({ userId: 'u-1' });
    expect(res.experiments).toEqual([]);
    expect(res.flows).toHaveLength(3);
  });
});
