import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/database.js';
import { seedWaitingEnrollments } from '../../../../test/helpers/journey-seed.js';
import { rawQuery } from '../../../db/raw.js';
import { newId } from '../../../platform/ids.js';
import { provisionTenant } from '../../tenants/provision.js';

/**
 * Node visits have no foreign key to their enrollment (migration 0057): a trigger deletes them
 * with it, whichever deletion cascades to the enrollment (its end user, its journey, its tenant).
 */
let db: TestDatabase;
const tenants: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  for (let i = 0; i < 2; i++) {
    tenants.push(
      await db.handle.db.transaction(async (tx) => {
        const userId = newId();
        await rawQuery(tx, `insert into users (id, email, name) values ($1, $2, 'C')`, [
          userId,
          `${userId}@example.com`,
        ]);
        const { tenant } = await provisionTenant(tx, {
          name: `Cascade ${userId.slice(-6)}`,
          owner: { userId, email: `${userId}@example.com` },
          plan: 'enterprise',
        });
        return tenant.id;
      }),
    );
  }
});
afterAll(() => db?.close());

const visitsOf = async (journeyId: string) =>
  (
    await rawQuery<{ n: number }>(
      db.handle.db,
      'select count(*)::int as n from journey_node_visits where journey_id = $1',
      [journeyId],
    )
  )[0]!.n;

describe('node visits go with their enrollment', () => {
  it('when its end user, its journey or its tenant is deleted, and only then', async () => {
    const due = () => Date.now() + 3_600_000;
    const a = await seedWaitingEnrollments(db.handle, tenants[0]!, 3, due);
    const b = await seedWaitingEnrollments(db.handle, tenants[0]!, 2, due);
    const c = await seedWaitingEnrollments(db.handle, tenants[1]!, 2, due);
    // TRIGGER and W1 visited by each enrollment.
    expect([await visitsOf(a.journeyId), await visitsOf(b.journeyId), await visitsOf(c.journeyId)]).toEqual([
      6, 4, 4,
    ]);

    await rawQuery(
      db.handle.db,
      'delete from end_users where id = (select end_user_id from journey_enrollments where id = $1)',
      [a.enrollmentIds[0]],
    );
    expect(await visitsOf(a.journeyId)).toBe(4);
    const [left] = await rawQuery<{ n: number }>(
      db.handle.db,
      'select count(*)::int as n from journey_node_visits where enrollment_id = $1',
      [a.enrollmentIds[0]],
    );
    expect(left!.n).toBe(0);

    await rawQuery(db.handle.db, 'delete from journeys where id = $1', [b.journeyId]);
    expect([await visitsOf(a.journeyId), await visitsOf(b.journeyId), await visitsOf(c.journeyId)]).toEqual([
      4, 0, 4,
    ]);

    await rawQuery(db.handle.db, 'delete from tenants where id = $1', [tenants[1]]);
    expect([await visitsOf(a.journeyId), await visitsOf(c.journeyId)]).toEqual([4, 0]);
  });
});
