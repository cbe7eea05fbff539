import { and, count, desc, eq, ilike, ne, type SQL, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { Executor } from '../../../db/client.js';
import { jsonValue, sqlRows } from '../../../db/raw.js';
import {
  JOURNEY_STATUSES,
  type JourneyStatus,
  journeyEdges,
  journeyEnrollments,
  journeyNodes,
  journeys,
} from '../../../db/schema/index.js';
import { fixedStatement, runPrepared } from '../../../db/statements.js';
import { containsPattern, listPage, type PageRequest } from '../../../platform/pagination.js';
import { audienceReferrers } from '../../audiences/index.js';
import type { GoalConfig } from '../engine/schemas.js';

/** Journeys and their canvases (`journeys`, `journey_nodes`, `journey_edges`). */

export { JOURNEY_STATUSES, type JourneyStatus };
export type JourneyRow = typeof journeys.$inferSelect;
export type NodeRow = typeof journeyNodes.$inferSelect;
export type EdgeRow = typeof journeyEdges.$inferSelect;

const j = journeys;

/** PUBLISHED, MANUAL trigger, with an audience: the journeys a session enrolls into by audience. */
export const isAudienceOnly = sql`${j.status} = 'PUBLISHED' and ${j.triggerType} = 'MANUAL' and ${j.audienceId} is not null`;

// ---- the API's ----------------------------------------------------------------------------------

/** The tenant's journey, or undefined; a malformed id is the caller's to refuse. */
export async function findJourney(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<JourneyRow | undefined> {
  const query = exec
    .select()
    .from(j)
    .where(and(eq(j.tenantId, tenantId), eq(j.id, id)))
    .limit(1);
  // NO KEY UPDATE, not UPDATE: the foreign key of a new enrollment row takes KEY SHARE on the
  // journey, so event processing and sessions (which lock an enrollment first) never wait for a
  // lifecycle change holding the journey, and cannot deadlock with it.
  const [row] = opts.lock ? await query.for('no key update') : await query;
  return row;
}

/** A page of the tenant's journeys, newest first. */
export async function listJourneysPage(
  exec: Executor,
  tenantId: string,
  query: PageRequest & {
    status?: JourneyStatus | undefined;
    siteId?: string | undefined;
    search?: string | undefined;
  },
) {
  const where: SQL[] = [eq(j.tenantId, tenantId)];
  // Archived journeys are soft-deleted: hidden unless asked for by status.
  where.push(query.status ? eq(j.status, query.status) : ne(j.status, 'ARCHIVED'));
  if (query.siteId) where.push(eq(j.siteId, query.siteId));
  if (query.search) where.push(ilike(j.name, containsPattern(query.search)));
  return listPage(
    exec
      .select()
      .from(j)
      .where(and(...where))
      .orderBy(desc(j.createdAt), desc(j.id)),
    exec
      .select({ n: count() })
      .from(j)
      .where(and(...where)),
    query,
  );
}

export async function insertJourney(exec: Executor, row: typeof journeys.$inferInsert): Promise<JourneyRow> {
  const [inserted] = await exec.insert(j).values(row).returning();
  return inserted!;
}

export async function updateJourney(
  exec: Executor,
  tenantId: string,
  id: string,
  set: PgUpdateSetSource<typeof journeys>,
): Promise<JourneyRow> {
  const [row] = await exec
    .update(j)
    .set(set)
    .where(and(eq(j.tenantId, tenantId), eq(j.id, id)))
    .returning();
  return row!;
}

/** A new canvas written: the next canvas version, and the trigger type it has. */
export const bumpCanvasVersion = (
  exec: Executor,
  tenantId: string,
  id: string,
  set: { triggerType: string | null; updatedAt: Date },
) => updateJourney(exec, tenantId, id, { ...set, canvasVersion: sql`${j.canvasVersion} + 1` });

/** Writes a canvas's rows for a journey that has none (new, or just emptied). */
export async function insertCanvas(
  tx: Executor,
  nodes: (typeof journeyNodes.$inferInsert)[],
  edges: (typeof journeyEdges.$inferInsert)[],
) {
  if (nodes.length > 0) await tx.insert(journeyNodes).values(nodes);
  if (edges.length > 0) await tx.insert(journeyEdges).values(edges);
}

export async function deleteCanvas(tx: Executor, tenantId: string, journeyId: string) {
  await tx
    .delete(journeyNodes)
    .where(and(eq(journeyNodes.tenantId, tenantId), eq(journeyNodes.journeyId, journeyId)));
  await tx
    .delete(journeyEdges)
    .where(and(eq(journeyEdges.tenantId, tenantId), eq(journeyEdges.journeyId, journeyId)));
}

export type CanvasNodeRow = Pick<NodeRow, 'id' | 'type' | 'config' | 'contentId' | 'position'>;
export type CanvasEdgeRow = Pick<EdgeRow, 'sourceNodeId' | 'targetNodeId' | 'label'>;

/**
 * The canvases of several journeys with the canvas version they are, in one statement: nodes,
 * edges and version come from one snapshot, so a `PUT /canvas` committing meanwhile can never mix
 * two versions. Without `tenantId`, any tenant's (the ids are the caller's, already checked).
 */
export async function listCanvases(exec: Executor, journeyIds: string[], tenantId?: string) {
  if (journeyIds.length === 0) return [];
  const n = journeyNodes;
  const e = journeyEdges;
  const rows = await sqlRows<{ id: string; canvasVersion: number; nodes: unknown; edges: unknown }>(
    exec,
    sql`select ${j.id} as id, ${j.canvasVersion} as "canvasVersion",
       coalesce((select jsonb_agg(jsonb_build_object('id', ${n.id}, 'type', ${n.type}, 'config', ${n.config},
                   'contentId', ${n.contentId}, 'position', ${n.position}) order by ${n.ord})
                 from ${n} where ${n.journeyId} = ${j.id}), '[]'::jsonb) as nodes,
       coalesce((select jsonb_agg(jsonb_build_object('sourceNodeId', ${e.sourceNodeId}, 'targetNodeId', ${e.targetNodeId},
                   'label', ${e.label}) order by ${e.ord})
                 from ${e} where ${e.journeyId} = ${j.id}), '[]'::jsonb) as edges
     from ${j} where ${j.id} = any(${sql.param(journeyIds)}::uuid[])${tenantId ? sql` and ${j.tenantId} = ${tenantId}` : sql``}`,
  );
  return rows.map((r) => ({
    id: r.id,
    canvasVersion: Number(r.canvasVersion),
    nodes: jsonValue<CanvasNodeRow[]>(r.nodes) ?? [],
    edges: jsonValue<CanvasEdgeRow[]>(r.edges) ?? [],
  }));
}

/** Counts of nodes, edges and enrollments of each journey. */
export async function countCanvasAndEnrollments(exec: Executor, tenantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await sqlRows<{ id: string; nodes: string; edges: string; enrollments: string }>(
    exec,
    sql`select ${j.id} as id,
       (select count(*) from ${journeyNodes} where ${journeyNodes.journeyId} = ${j.id}) as nodes,
       (select count(*) from ${journeyEdges} where ${journeyEdges.journeyId} = ${j.id}) as edges,
       (select count(*) from ${journeyEnrollments} where ${journeyEnrollments.journeyId} = ${j.id}) as enrollments
     from ${j} where ${j.tenantId} = ${tenantId} and ${j.id} = any(${sql.param(ids)}::uuid[])`,
  );
  return rows.map((r) => ({
    id: r.id,
    nodes: Number(r.nodes),
    edges: Number(r.edges),
    enrollments: Number(r.enrollments),
  }));
}

/** PUBLISHED journeys with a CONTENT node showing the flow → PAUSED; answers them. */
export async function pauseJourneysShowingFlow(exec: Executor, tenantId: string, flowId: string, now: Date) {
  const n = journeyNodes;
  return exec
    .update(j)
    .set({ status: 'PAUSED', updatedAt: now })
    .where(
      and(
        eq(j.tenantId, tenantId),
        eq(j.status, 'PUBLISHED'),
        sql`exists (select 1 from ${n} where ${n.journeyId} = ${j.id} and ${n.tenantId} = ${tenantId}
          and ${n.type} = 'CONTENT' and ${n.contentId} = ${flowId} and ${n.config} ->> 'contentType' = 'flow')`,
      ),
    )
    .returning({ id: j.id, name: j.name });
}

/** What an audience is referenced by, for the audiences module. */
export const findJourneysTargeting = audienceReferrers(journeys, { type: 'journey', archived: 'ARCHIVED' });

// ---- the runtime's -------------------------------------------------------------------------------

/** What the runtime needs of a journey to step its enrollments. */
export type JourneyHead = Pick<JourneyRow, 'id' | 'canvasVersion'> & { goalConfig: GoalConfig | null };

export type LiveJourney = JourneyHead &
  Pick<JourneyRow, 'tenantId' | 'status' | 'audienceId' | 'allowAnonymous' | 'settings' | 'triggerType'>;

const liveStatement = fixedStatement<LiveJourney, { tenantIds: string[] }>(
  sql`select ${j.id} as "id", ${j.tenantId} as "tenantId", ${j.status} as "status", ${j.audienceId} as "audienceId",
      ${j.allowAnonymous} as "allowAnonymous", ${j.settings} as "settings", ${j.goalConfig} as "goalConfig",
      ${j.canvasVersion} as "canvasVersion", ${j.triggerType} as "triggerType"
    from ${j} where ${j.tenantId} = any(${sql.placeholder('tenantIds')}::uuid[]) and ${j.status} <> 'ARCHIVED'`,
);

/** The tenants' journeys that are not archived (the event effect's, on every chunk: prepared). */
export const listLiveJourneys = (tx: Executor, tenantIds: string[]) =>
  runPrepared(tx, liveStatement, { tenantIds });

/** The heads of these journeys, any tenant's (the timer job's). */
export async function listJourneyHeads(tx: Executor, ids: string[]): Promise<JourneyHead[]> {
  const rows = await tx
    .select({ id: j.id, canvasVersion: j.canvasVersion, goalConfig: j.goalConfig })
    .from(j)
    .where(sql`${j.id} = any(${sql.param(ids)}::uuid[])`);
  return rows as JourneyHead[];
}

/** The tenant's journeys that are not archived, for the delivery snapshot. */
export async function listDeliveryJourneys(tx: Executor, tenantId: string) {
  const rows = await tx
    .select({
      id: j.id,
      status: j.status,
      audienceId: j.audienceId,
      allowAnonymous: j.allowAnonymous,
      settings: j.settings,
      goalConfig: j.goalConfig,
      canvasVersion: j.canvasVersion,
      audienceOnly: sql<boolean>`(${isAudienceOnly})`,
    })
    .from(j)
    .where(and(eq(j.tenantId, tenantId), ne(j.status, 'ARCHIVED')));
  return rows.map((r) => ({ ...r, goalConfig: r.goalConfig as GoalConfig | null }));
}

/** The content (id and `contentType`) CONTENT nodes of the tenant's non-archived journeys show. */
export async function listShownContent(tx: Executor, tenantId: string) {
  const n = journeyNodes;
  return tx
    .selectDistinct({ id: sql<string>`${n.contentId}`, type: sql<string>`${n.config} ->> 'contentType'` })
    .from(n)
    .innerJoin(j, eq(j.id, n.journeyId))
    .where(
      and(
        eq(j.tenantId, tenantId),
        ne(j.status, 'ARCHIVED'),
        eq(n.type, 'CONTENT'),
        sql`${n.contentId} is not null`,
      ),
    );
}

/**
 * ARCHIVED journeys that still have in-progress enrollments, locked (NO KEY UPDATE, as a
 * lifecycle change locks them), skipping those another transaction holds. Any tenant's.
 */
export async function lockArchivedJourneysInProgress(tx: Executor): Promise<string[]> {
  const e = journeyEnrollments;
  const rows = await sqlRows<{ id: string }>(
    tx,
    sql`select ${j.id} as id from ${j}
      where ${j.status} = 'ARCHIVED'
        and exists (select 1 from ${e} where ${e.journeyId} = ${j.id} and ${e.status} = 'in_progress')
      order by ${j.id}
      for no key update of ${j} skip locked`,
  );
  return rows.map((r) => r.id);
}
