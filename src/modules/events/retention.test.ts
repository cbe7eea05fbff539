import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, sdkCall } from '../../../test/helpers/sdk.js';
import { newId } from '../../platform/ids.js';
import { DAY_MS, monthOf } from './engine/retention.js';
import { EVENT_RETENTION, RETENTION_BATCH, RETENTION_EVERY_MS } from './retention.js';

/**
 * The retention job over HTTP-written events, on both databases (docs/retention.md): each
 * tenant loses only what is older than its plan's retention; PostgreSQL drops expired months as
 * partitions and prepares the coming ones; new periods accept events; a second run changes
 * nothing; concurrent runs do the work once.
 */

let t: TestApp;
let free: TenantFixture; // 30 days
let growth: TenantFixture; // 180 days
let enterprise: TenantFixture; // 365 days
let bystander: TenantFixture; // enterprise too, never aged
const keys = new Map<string, string>();

// Noon UTC, so ages in whole days fall mid-day, clear of the day boundary the cutoffs use.
const NOW = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2;
const AGES = [1, 29, 31, 100, 179, 181, 300, 364, 400, 500];

const partitioned = () => t.db.handle.kind === 'postgres';
const query = <T>(text: string, params: unknown[] = []) => t.db.handle.query<T>(text, params);

async function send(tenant: TenantFixture, at: number, n = 1): Promise<void> {
  t.clock.set(at);
  const res = await sdkCall(t, keys.get(tenant.tenantId)!)('POST', '/api/sdk/events', {
    events: Array.from({ length: n }, (_, i) => ({ type: 'CUSTOM', name: `e${i}`, userId: 'u-1' })),
  });
  expect(res.statusCode, res.body).toBe(202);
}

/** The ages in days (from NOW) of the tenant's stored batches, ascending, distinct. */
async function agesOf(tenant: TenantFixture): Promise<number[]> {
  const rows = await query<{ received_at: Date | string }>(
    'select received_at from event_batches where tenant_id = $1',
    [tenant.tenantId],
  );
  const ages = rows.map((r) => Math.round((NOW - new Date(r.received_at).getTime()) / DAY_MS));
  return [...new Set(ages)].sort((a, b) => a - b);
}

async function runAt(at: number): Promise<void> {
  t.clock.set(at);
  await t.runJob(EVENT_RETENTION);
}

const partitionNames = async () =>
  (
    await query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent = 'event_batches'::regclass order by 1`,
    )
  ).map((r) => r.name);

const partitionOf = (month: string) => `event_batches_p${month.slice(0, 4)}_${month.slice(5, 7)}`;

async function deadLetter(tenant: TenantFixture, ageDays: number): Promise<void> {
  await query(
    `insert into event_dead_letters (id, tenant_id, batch_id, correlation_id, event, reason, created_at)
     values ($1, $2, $3, $4, '{"type":"CUSTOM"}', 'test', $5)`,
    [newId(), tenant.tenantId, newId(), newId(), new Date(NOW - ageDays * DAY_MS).toISOString()],
  );
}

beforeAll(async () => {
  t = await createTestApp();
  free = await createTenant(t, { plan: 'free' });
  growth = await createTenant(t, { plan: 'growth' });
  enterprise = await createTenant(t, { plan: 'enterprise' });
  bystander = await createTenant(t, { plan: 'enterprise' });
  for (const tenant of [free, growth, enterprise, bystander])
    keys.set(tenant.tenantId, await apiKeyOf(t, tenant));
  for (const tenant of [free, growth, enterprise]) {
    for (const age of AGES) await send(tenant, NOW - age * DAY_MS);
  }
  for (const age of [1, 200]) await send(bystander, NOW - age * DAY_MS);
  for (const tenant of [free, growth, enterprise])
    for (const age of [10, 40, 200, 400]) await deadLetter(tenant, age);
}, 60_000);
afterAll(() => t?.close());

describe('event retention', () => {
  it('reads each plan’s retention from the plans (seeded by migration 0096)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/pricing/plans', headers: free.owner.headers });
    expect(res.statusCode).toBe(200);
    const days = Object.fromEntries(
      res.json().data.map((p: { name: string; retentionDays: number | null }) => [p.name, p.retentionDays]),
    );
    expect(days).toEqual({ free: 30, starter: 90, growth: 180, enterprise: 365 });
  });

  it('before the job, every event is stored', async () => {
    for (const tenant of [free, growth, enterprise]) expect(await agesOf(tenant)).toEqual(AGES);
  });

  it('drops only what is older than each tenant’s plan retention, and no other tenant’s rows', async () => {
    await runAt(NOW);
    expect(await agesOf(free)).toEqual([1, 29]);
    expect(await agesOf(growth)).toEqual([1, 29, 31, 100, 179]);
    // The longest retention: on PostgreSQL these go with their month's partition (a row just
    // past 365 days may wait for its whole month to pass; 400 days is always a month gone).
    expect(await agesOf(enterprise)).toEqual([1, 29, 31, 100, 179, 181, 300, 364]);
    expect(await agesOf(bystander)).toEqual([1, 200]);

    const letters = await query<{ tenant_id: string; n: number }>(
      `select tenant_id, count(*)::int as n from event_dead_letters where tenant_id = any($1::uuid[]) group by 1`,
      [[free.tenantId, growth.tenantId, enterprise.tenantId]],
    );
    const count = Object.fromEntries(letters.map((r) => [r.tenant_id, r.n]));
    expect(count).toEqual({ [free.tenantId]: 1, [growth.tenantId]: 2, [enterprise.tenantId]: 3 });
  });

  it('on PostgreSQL, expired months are dropped as partitions and the coming ones prepared', async () => {
    if (!partitioned()) return;
    const names = await partitionNames();
    const now = new Date(NOW);
    for (let i = 0; i <= 2; i++) expect(names).toContain(partitionOf(monthOf(now, i)));
    // 500 days ago is a month that ended before the longest retention (365 days): gone whole.
    expect(names).not.toContain(partitionOf(monthOf(new Date(NOW - 500 * DAY_MS))));
    // 300 days ago is kept (the growth and enterprise tenants' rows live there).
    expect(names).toContain(partitionOf(monthOf(new Date(NOW - 300 * DAY_MS))));
    // Rows sent while no partition covered their month were moved out of the default one.
    expect(await query('select 1 from event_batches_default')).toEqual([]);
  });

  it('is idempotent: a later run removes nothing more', async () => {
    const before = await Promise.all([free, growth, enterprise, bystander].map(agesOf));
    await runAt(NOW + RETENTION_EVERY_MS);
    expect(await Promise.all([free, growth, enterprise, bystander].map(agesOf))).toEqual(before);
  });

  it('deletes in batches of RETENTION_BATCH until nothing old is left', async () => {
    const many = await createTenant(t, { plan: 'free' });
    keys.set(many.tenantId, await apiKeyOf(t, many));
    const old = NOW - 60 * DAY_MS;
    // More batches than one DELETE takes, received at one old time, and one recent.
    await query(
      `insert into event_batches (id, tenant_id, correlation_id, received_at, event_count, events, events_br, source)
       select gen_random_uuid(), $1, gen_random_uuid(), $2, 1, $3, $4, 'sdk' from generate_series(1, $5)`,
      partitioned()
        ? [many.tenantId, new Date(old).toISOString(), '[]', null, RETENTION_BATCH * 2 + 7]
        : [many.tenantId, new Date(old).toISOString(), null, Buffer.from('x'), RETENTION_BATCH * 2 + 7],
    );
    await send(many, NOW - DAY_MS);
    await runAt(NOW + 3 * RETENTION_EVERY_MS);
    expect(await agesOf(many)).toEqual([1]);
  });

  it('runs once across instances: concurrent runs of two apps on one database do the work once', async () => {
    const second = await createTestApp({ db: t.db });
    try {
      const tenant = await createTenant(t, { plan: 'free' });
      keys.set(tenant.tenantId, await apiKeyOf(t, tenant));
      await send(tenant, NOW - 40 * DAY_MS);
      await send(tenant, NOW - DAY_MS);
      const at = NOW + 10 * RETENTION_EVERY_MS;
      t.clock.set(at);
      second.clock.set(at);
      await Promise.all([t.runJob(EVENT_RETENTION), second.runJob(EVENT_RETENTION)]);
      expect(await agesOf(tenant)).toEqual([1]);
      const [lease] = await query<{
        last_run_at: Date | string;
        due_at: Date | string;
        holder: string | null;
      }>(`select last_run_at, due_at, holder from job_leases where name = $1`, [EVENT_RETENTION]);
      expect(new Date(lease!.last_run_at).getTime()).toBe(at);
      expect(new Date(lease!.due_at).getTime()).toBe(at + RETENTION_EVERY_MS);
      expect(lease!.holder).toBeNull();
      // Not due yet: a run from either instance is a no-op that leaves the lease as it was.
      await send(tenant, NOW - 40 * DAY_MS);
      second.clock.set(at + 1000);
      await second.runJob(EVENT_RETENTION);
      expect(await agesOf(tenant)).toEqual([1, 40]);
    } finally {
      await second.close();
    }
  });

  it('accepts events in coming periods: prepared months, and beyond them through the default partition', async () => {
    const nextMonth = Date.parse(monthOf(new Date(NOW), 1)) + 3 * DAY_MS;
    await send(bystander, nextMonth);
    const farAhead = Date.parse(monthOf(new Date(NOW), 6)) + 3 * DAY_MS;
    await send(bystander, farAhead);
    const rows = await query<{ part: string; received_at: Date | string }>(
      'select tableoid::regclass::text as part, received_at from event_batches where tenant_id = $1 order by received_at',
      [bystander.tenantId],
    );
    expect(rows).toHaveLength(4);
    if (!partitioned()) return;
    expect(rows.map((r) => r.part)).toEqual([
      partitionOf(monthOf(new Date(NOW - 200 * DAY_MS))),
      partitionOf(monthOf(new Date(NOW))),
      partitionOf(monthOf(new Date(NOW), 1)),
      'event_batches_default',
    ]);
    // The job, run in that far month, gives the row its month's partition.
    await runAt(farAhead);
    const [moved] = await query<{ part: string }>(
      'select tableoid::regclass::text as part from event_batches where tenant_id = $1 and received_at >= $2',
      [bystander.tenantId, new Date(farAhead).toISOString()],
    );
    expect(moved?.part).toBe(partitionOf(monthOf(new Date(NOW), 6)));
    expect(await query('select 1 from event_batches_default')).toEqual([]);
  });
});
