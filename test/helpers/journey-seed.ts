import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../../src/db/client.js';
import { columnsOf, rawQuery } from '../../src/db/raw.js';
import { compileJourney } from '../../src/modules/journeys/engine/graph.js';
import type { JourneyEdge, JourneyNode } from '../../src/modules/journeys/engine/schemas.js';
import { startEnrollment } from '../../src/modules/journeys/runtime/enroll.js';
import { type Live, persist } from '../../src/modules/journeys/runtime/persist.js';
import { newId } from '../../src/platform/ids.js';

/**
 * A PUBLISHED journey (version 1, live) `TRIGGER(MANUAL) → W1 (WAIT) → W2 (WAIT, a year) → EXIT` and `count`
 * enrollments waiting at W1, written straight to the store as the runtime itself would write them
 * (the pure machine's `enter`, then `persist`): timers due at `dueAt(i)`. For the crash and
 * multi-instance tests and the timers benchmark.
 */
export interface SeededTimers {
  journeyId: string;
  w1: string;
  w2: string;
  enrollmentIds: string[];
}

const at = { x: 0, y: 0 };

export async function seedWaitingEnrollments(
  db: DatabaseHandle,
  tenantId: string,
  count: number,
  dueAt: (i: number) => number,
  opts: { waitMs?: number; chunk?: number } = {},
): Promise<SeededTimers> {
  const waitMs = opts.waitMs ?? 1000;
  const ids = { trigger: randomUUID(), w1: randomUUID(), w2: randomUUID(), exit: randomUUID() };
  const nodes = [
    {
      id: ids.trigger,
      type: 'TRIGGER',
      config: { triggerType: 'MANUAL', triggerConfig: {} },
      position: at,
    },
    { id: ids.w1, type: 'WAIT', config: { duration: waitMs }, position: at },
    { id: ids.w2, type: 'WAIT', config: { duration: 365 * 86_400_000 }, position: at },
    { id: ids.exit, type: 'EXIT', config: {}, position: at },
  ] as JourneyNode[];
  const edges: JourneyEdge[] = [
    { sourceNodeId: ids.trigger, targetNodeId: ids.w1 },
    { sourceNodeId: ids.w1, targetNodeId: ids.w2 },
    { sourceNodeId: ids.w2, targetNodeId: ids.exit },
  ];
  const journeyId = newId();
  const siteId = randomUUID();
  await db.db.transaction(async (tx) => {
    await rawQuery(
      tx,
      `insert into journeys (id, tenant_id, site_id, name, status, settings, trigger_type, live_version, published_at)
       values ($1, $2, $3, 'Seeded timers', 'PUBLISHED', '{"reentry":"never"}', 'MANUAL', 1, now())`,
      [journeyId, tenantId, siteId],
    );
    // Version 1, live: what the engine runs (docs/versions.md).
    await rawQuery(
      tx,
      `insert into item_versions (tenant_id, item_type, item_id, version, snapshot) values ($1, 'journey', $2, 1, $3)`,
      [
        tenantId,
        journeyId,
        JSON.stringify({
          name: 'Seeded timers',
          description: null,
          siteId,
          audienceId: null,
          settings: { reentry: 'never' },
          goalConfig: null,
          allowAnonymous: false,
          nodes,
          edges,
        }),
      ],
    );
    await rawQuery(
      tx,
      `insert into live_item_versions (tenant_id, item_type, item_id, version, published_at)
       values ($1, 'journey', $2, 1, now())`,
      [tenantId, journeyId],
    );
    await rawQuery(
      tx,
      `insert into journey_nodes (journey_id, id, tenant_id, ord, type, config, content_id, position)
       select $1, n.id, $2, n.ord, n.type, n.config, null, '{"x":0,"y":0}'
       from unnest($3::uuid[], $4::int[], $5::text[], $6::jsonb[]) as n (id, ord, type, config)`,
      [
        journeyId,
        tenantId,
        ...columnsOf(
          nodes.map((n, ord) => ({ ...n, ord })),
          ['id', 'ord', 'type', (n) => JSON.stringify(n.config)],
        ),
      ],
    );
    await rawQuery(
      tx,
      `insert into journey_edges (journey_id, ord, tenant_id, source_node_id, target_node_id)
       select $1, e.ord, $2, e.s, e.t from unnest($3::int[], $4::uuid[], $5::uuid[]) as e (ord, s, t)`,
      [
        journeyId,
        tenantId,
        edges.map((_, i) => i),
        edges.map((e) => e.sourceNodeId),
        edges.map((e) => e.targetNodeId),
      ],
    );
  });
  const graph = { ...compileJourney({ nodes, edges, goalConfig: null }), version: 1 };
  const enrollmentIds: string[] = [];
  const chunk = opts.chunk ?? 5_000;
  for (let start = 0; start < count; start += chunk) {
    const n = Math.min(chunk, count - start);
    const userIds = Array.from({ length: n }, () => newId());
    await db.db.transaction(async (tx) => {
      await rawQuery(
        tx,
        `insert into end_users (id, tenant_id, external_id, traits)
         select u, $1, 'seeded-' || u::text, '{}' from unnest($2::uuid[]) as u`,
        [tenantId, userIds],
      );
      const lives: Live[] = userIds.map((endUserId, k) =>
        startEnrollment(graph, { tenantId, journeyId, endUserId }, dueAt(start + k) - waitMs, {}),
      );
      await persist(tx, lives);
      for (const l of lives) enrollmentIds.push(l.ref.id);
    });
  }
  return { journeyId, w1: ids.w1, w2: ids.w2, enrollmentIds };
}

/** What the timers did: per enrollment its visits of W1 and W2, its node timers, and its status. */
export async function timerOutcome(db: DatabaseHandle, seeded: SeededTimers) {
  const [row] = await db.query<{
    enrollments: number;
    at_w2: number;
    w1_exited: number;
    w2_visits: number;
    w2_distinct: number;
    other_visits: number;
    w2_timers: number;
    w1_timers: number;
  }>(
    `select
       (select count(*) from journey_enrollments where journey_id = $1)::int as enrollments,
       (select count(*) from journey_enrollments where journey_id = $1 and status = 'in_progress'
          and current_node_id = $3)::int as at_w2,
       (select count(*) from journey_node_visits where journey_id = $1 and node_id = $2 and exited_at is not null)::int as w1_exited,
       (select count(*) from journey_node_visits where journey_id = $1 and node_id = $3)::int as w2_visits,
       (select count(distinct enrollment_id) from journey_node_visits where journey_id = $1 and node_id = $3)::int as w2_distinct,
       (select count(*) from journey_node_visits where journey_id = $1 and visit <> 1)::int as other_visits,
       (select count(*) from journey_timers where journey_id = $1 and kind = 'node' and node_id = $3)::int as w2_timers,
       (select count(*) from journey_timers where journey_id = $1 and kind = 'node' and node_id = $2)::int as w1_timers`,
    [seeded.journeyId, seeded.w1, seeded.w2],
  );
  return row!;
}

/**
 * Fires the due timers as the timer job does, with its knobs (timers per chunk, chunks at once):
 * bench/journey-timers-profile.ts times it in process.
 */
export { fireDueTimers } from '../../src/modules/journeys/runtime/timers.js';
