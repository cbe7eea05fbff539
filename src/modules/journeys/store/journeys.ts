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

/** Journeys and their canvases (`journeys`, `journey_nodes`, `journey_edges`). */

export { JOURNEY_STATUSES, type JourneyStatus };
export type JourneyRow = typeof journeys.$inferSelect;
export type NodeRow = typeof journeyNodes.$inferSelect;
export type EdgeRow = typeof journeyEdges.$inferSelect;

const j = journeys;

/**
 * PUBLISHED with a MANUAL trigger (live version's): the journeys a session may enroll into by
 * audience (those whose live version has an audience), whose ended enrollments the session reads
 * for re-entry. The audience is the live version's, in its snapshot, so not tested here.
 */
export const isAudienceOnly = sql`${j.status} = 'PUBLISHED' and ${j.triggerType} = 'MANUAL'`;

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

/** A new working canvas written: the next canvas version. */
export const bumpCanvasVersion = (exec: Executor, tenantId: string, id: string, now: Date) =>
  updateJourney(exec, tenantId, id, { updatedAt: now, canvasVersion: sql`${j.canvasVersion} + 1` });

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
/**
 * The tenant's PUBLISHED journeys that have a live version, locked as a lifecycle change locks
 * them (in id order): what a dependent disabler reads before it pauses some.
 */
export function lockPublishedJourneys(exec: Executor, tenantId: string) {
  return exec
    .select({ id: j.id, name: j.name, liveVersion: sql<number>`${j.liveVersion}` })
    .from(j)
    .where(and(eq(j.tenantId, tenantId), eq(j.status, 'PUBLISHED'), sql`${j.liveVersion} is not null`))
    .orderBy(j.id)
    .for('no key update');
}

/** These journeys of the tenant paused (those still PUBLISHED). */
export async function pauseJourneys(exec: Executor, tenantId: string, ids: string[], now: Date) {
  if (ids.length === 0) return [];
  return exec
    .update(j)
    .set({ status: 'PAUSED', updatedAt: now })
    .where(
      and(eq(j.tenantId, tenantId), eq(j.status, 'PUBLISHED'), sql`${j.id} = any(${sql.param(ids)}::uuid[])`),
    )
    .returning({ id: j.id, name: j.name });
}

/** The tenant's non-archived journeys that have a live version, with it. */
export function listJourneysWithLiveVersion(exec: Executor, tenantId: string) {
  return exec
    .select({ id: j.id, name: j.name, liveVersion: sql<number>`${j.liveVersion}` })
    .from(j)
    .where(and(eq(j.tenantId, tenantId), ne(j.status, 'ARCHIVED'), sql`${j.liveVersion} is not null`));
}

/** What an audience is referenced by in working copies (service.ts adds the live versions'). */
export const findJourneysTargeting = audienceReferrers(journeys, { type: 'journey', archived: 'ARCHIVED' });

// ---- the runtime's -------------------------------------------------------------------------------

/**
 * What the event effect needs of a journey: its lifecycle status and its live version (whose
 * snapshot holds everything else it runs on); `triggerType` mirrors that version's TRIGGER.
 */
export type LiveJourney = Pick<JourneyRow, 'id' | 'tenantId' | 'status' | 'liveVersion' | 'triggerType'>;

const liveStatement = fixedStatement<LiveJourney, { tenantIds: string[] }>(
  sql`select ${j.id} as "id", ${j.tenantId} as "tenantId", ${j.status} as "status",
      ${j.liveVersion} as "liveVersion", ${j.triggerType} as "triggerType"
    from ${j} where ${j.tenantId} = any(${sql.placeholder('tenantIds')}::uuid[]) and ${j.status} <> 'ARCHIVED'`,
);

/** The tenants' journeys that are not archived (the event effect's, on every chunk: prepared). */
export const listLiveJourneys = (tx: Executor, tenantIds: string[]) =>
  runPrepared(tx, liveStatement, { tenantIds });

/** The tenant's journeys that are not archived, for the delivery snapshot: status and live version. */
export function listDeliveryJourneys(tx: Executor, tenantId: string) {
  return tx
    .select({ id: j.id, status: j.status, liveVersion: j.liveVersion, triggerType: j.triggerType })
    .from(j)
    .where(and(eq(j.tenantId, tenantId), ne(j.status, 'ARCHIVED')));
}

/**
 * The versions the in-progress enrollments of these journeys run (the delivery snapshot serves
 * the content of each): once per snapshot load, never per session. An enrollment runs a version
 * that was live when it entered, so never one above the journey's live version; each version up
 * to it costs one probe of the (journey, version) index of in-progress enrollments, however many
 * users are enrolled (migration 0099).
 */
export async function listPinnedVersions(tx: Executor, journeyIds: string[]) {
  if (journeyIds.length === 0) return [];
  const j = journeys;
  const e = journeyEnrollments;
  return tx
    .select({ journeyId: j.id, version: sql<number>`v.version`.mapWith(Number) })
    .from(j)
    .innerJoin(sql`lateral generate_series(1, ${j.liveVersion}) as v(version)`, sql`true`)
    .where(
      and(
        sql`${j.id} = any(${sql.param(journeyIds)}::uuid[])`,
        sql`exists (select 1 from ${e} where ${e.journeyId} = ${j.id} and ${e.journeyVersion} = v.version and ${e.status} = 'in_progress')`,
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
