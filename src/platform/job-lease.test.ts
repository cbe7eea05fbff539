import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { newId } from './ids.js';
import { claimJobLease, releaseJobLease } from './job-lease.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

describe('job leases (migration 0097)', () => {
  it('of concurrent claims exactly one wins; a released lease is due again only at its next time', async () => {
    const now = new Date();
    const holders = Array.from({ length: 8 }, () => newId());
    const won = await Promise.all(
      holders.map((h) => claimJobLease(db.handle.db, 'lease-test', h, now, 60_000)),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = holders[won.indexOf(true)]!;
    // Held: not claimable before the lease runs out, claimable after.
    expect(
      await claimJobLease(db.handle.db, 'lease-test', newId(), new Date(now.getTime() + 59_000), 60_000),
    ).toBe(false);
    await releaseJobLease(db.handle.db, 'lease-test', winner, {
      nextDue: new Date(now.getTime() + 3_600_000),
      ranAt: now,
    });
    expect(
      await claimJobLease(db.handle.db, 'lease-test', newId(), new Date(now.getTime() + 61_000), 60_000),
    ).toBe(false);
    expect(
      await claimJobLease(db.handle.db, 'lease-test', newId(), new Date(now.getTime() + 3_600_000), 60_000),
    ).toBe(true);
  });

  it('a holder that lost its lease cannot release another’s', async () => {
    const now = new Date();
    const [first, second] = [newId(), newId()];
    expect(await claimJobLease(db.handle.db, 'lease-lost', first, now, 1_000)).toBe(true);
    expect(
      await claimJobLease(db.handle.db, 'lease-lost', second, new Date(now.getTime() + 2_000), 60_000),
    ).toBe(true);
    await releaseJobLease(db.handle.db, 'lease-lost', first, { nextDue: now, ranAt: now });
    // Still the second's: not claimable before its lease runs out.
    expect(
      await claimJobLease(db.handle.db, 'lease-lost', newId(), new Date(now.getTime() + 3_000), 60_000),
    ).toBe(false);
  });
});
