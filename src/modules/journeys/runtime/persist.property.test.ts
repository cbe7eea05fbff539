import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/database.js';
import { validGraphArb } from '../../../../test/helpers/journeys.js';
import { rawQuery } from '../../../db/raw.js';
import { newId } from '../../../platform/ids.js';
import { provisionTenant } from '../../tenants/provision.js';
import { compileJourney, type JourneyGraph } from '../engine/graph.js';
import type { EnrollmentInput } from '../engine/machine.js';
import type { JourneyNode } from '../engine/schemas.js';
import { startEnrollment } from './enroll.js';
import { feed, type Live, persist, timersOf } from './persist.js';

/**
 * The durable layer stores exactly what the pure machine decides: random valid journeys, random
 * input sequences, each step written by `persist` in its own transaction; after every step the
 * stored row, node history and timers are what the machine's state and effects say.
 */

let db: TestDatabase;
let tenantId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  tenantId = await db.handle.db.transaction(async (tx) => {
    const userId = newId();
    await rawQuery(tx, `insert into users (id, email, name) values ($1, $2, 'P')`, [
      userId,
      `${userId}@example.com`,
    ]);
    const { tenant } = await provisionTenant(tx, {
      name: `Prop ${userId.slice(-6)}`,
      owner: { userId, email: `${userId}@example.com` },
      plan: 'enterprise',
    });
    return tenant.id;
  });
});
afterAll(() => db?.close());

/** The generator's readable node ids as uuids (the tables hold uuids). */
function withUuids(graph: JourneyGraph): JourneyGraph {
  const ids = new Map(
    graph.nodes.map((n, i) => [n.id, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`]),
  );
  return {
    nodes: graph.nodes.map((n) => ({ ...n, id: ids.get(n.id)! }) as JourneyNode),
    edges: graph.edges.map((e) => ({
      ...e,
      sourceNodeId: ids.get(e.sourceNodeId)!,
      targetNodeId: ids.get(e.targetNodeId)!,
    })),
    goalConfig: graph.goalConfig ?? null,
  };
}

type Sym = 'fire' | 'done' | 'e1' | 'e2' | 'goal' | 'deadline';
const symArb = fc.constantFrom<Sym>('fire', 'fire', 'done', 'done', 'e1', 'e2', 'goal', 'deadline');

function inputOf(sym: Sym, live: Live): EnrollmentInput | null {
  const w = live.state.waiting;
  switch (sym) {
    case 'fire':
      return w && w.kind !== 'content' && w.dueAt !== undefined
        ? { type: 'timer', nodeId: w.nodeId, visit: w.visit }
        : null;
    case 'done':
      return w?.kind === 'content' ? { type: 'contentDone', nodeId: w.nodeId, visit: w.visit } : null;
    case 'deadline':
      return { type: 'deadline' };
    default:
      return { type: 'event', event: { type: 'CUSTOM', name: sym } };
  }
}

describe('persist: the stored enrollment is the machine’s', () => {
  it('keeps row, history and timers equal to the machine’s state and effects after every step', async () => {
    await fc.assert(
      fc.asyncProperty(
        validGraphArb,
        fc.array(fc.record({ sym: symArb, dt: fc.integer({ min: 0, max: 4 * 3_600_000 }) }), {
          maxLength: 12,
        }),
        async (raw, moves) => {
          const graph = withUuids(raw);
          const journey = compileJourney(graph);
          const journeyId = newId();
          const endUserId = newId();
          await rawQuery(
            db.handle.db,
            `insert into journeys (id, tenant_id, site_id, name) values ($1, $2, $3, 'P')`,
            [journeyId, tenantId, newId()],
          );
          await rawQuery(
            db.handle.db,
            `insert into end_users (id, tenant_id, external_id) values ($1, $2, $3)`,
            [endUserId, tenantId, endUserId],
          );
          let now = Date.UTC(2030, 0, 1);
          const live = startEnrollment(journey, { tenantId, journeyId, endUserId }, now, {
            traits: { flag: true },
          });
          let entered = live.effects.filter((e) => e.type === 'nodeEntered').length;
          await db.handle.db.transaction((tx) => persist(tx, [live]));
          const check = async () => {
            const [row] = await rawQuery<{ status: string; current_node_id: string | null; state: unknown }>(
              db.handle.db,
              'select status, current_node_id, state from journey_enrollments where id = $1',
              [live.ref.id],
            );
            expect(row).toEqual({
              status: live.state.status,
              current_node_id: live.state.currentNodeId,
              state: live.state,
            });
            const visits = await rawQuery<{ node_id: string; visit: number; exited_at: Date | null }>(
              db.handle.db,
              'select node_id, visit, exited_at from journey_node_visits where enrollment_id = $1',
              [live.ref.id],
            );
            expect(visits).toHaveLength(entered);
            const open = visits.filter((v) => v.exited_at === null);
            const w = live.state.waiting;
            expect(open.map((v) => [v.node_id, v.visit])).toEqual(w ? [[w.nodeId, w.visit]] : []);
            const timers = await rawQuery<{
              kind: string;
              node_id: string | null;
              visit: number;
              due_at: Date;
            }>(
              db.handle.db,
              'select kind, node_id, visit, due_at from journey_timers where enrollment_id = $1 order by kind',
              [live.ref.id],
            );
            expect(timers.map((t) => ({ ...t, due_at: t.due_at.getTime() }))).toEqual(
              timersOf(live.ref, live.state)
                .map((t) => ({ kind: t.kind, node_id: t.nodeId, visit: t.visit, due_at: t.dueAt }))
                .sort((a, b) => a.kind.localeCompare(b.kind)),
            );
          };
          await check();
          for (const move of moves) {
            now += move.dt;
            const input = inputOf(move.sym, live);
            if (!input) continue;
            feed(live, journey, input, {
              nowMs: now,
              context: { traits: { flag: move.dt % 2 === 0, goal: false } },
            });
            entered += live.effects.filter((e) => e.type === 'nodeEntered').length;
            await db.handle.db.transaction((tx) => persist(tx, [live]));
            await check();
          }
        },
      ),
      { numRuns: 40, seed: 20261125 },
    );
  }, 120_000);
});
