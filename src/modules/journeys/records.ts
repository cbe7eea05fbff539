import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { jsonValue, rawQuery } from '../../db/raw.js';
import {
  audiences,
  contentItems,
  flows,
  type journeyEdges,
  type journeyNodes,
  journeys,
  npsSurveys,
} from '../../db/schema/index.js';
import { contentNotFound, validationError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import type { JourneyGraph } from './engine/graph.js';
import {
  CONTENT_SLUGS,
  type GoalConfig,
  type JourneyContentType,
  type JourneyEdge,
  type JourneyNode,
} from './engine/schemas.js';
import type { PublishIssue } from './engine/validate.js';
import { validateForPublish } from './engine/validate.js';

export type JourneyRow = typeof journeys.$inferSelect;
type NodeRow = typeof journeyNodes.$inferSelect;
type EdgeRow = typeof journeyEdges.$inferSelect;

export const journeyMissing = () => contentNotFound('Journey');

/** The tenant's journey, or null; a malformed id simply matches nothing. */
export async function findJourney(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<JourneyRow | null> {
  if (!isUuid(id)) return null;
  const query = exec
    .select()
    .from(journeys)
    .where(and(eq(journeys.tenantId, tenantId), eq(journeys.id, id)))
    .limit(1);
  // NO KEY UPDATE, not UPDATE: the foreign key of a new enrollment row takes KEY SHARE on the
  // journey, so event processing and sessions (which lock an enrollment first) never wait for a
  // lifecycle change holding the journey, and cannot deadlock with it.
  const [row] = opts.lock ? await query.for('no key update') : await query;
  return row ?? null;
}

/** A stored node as the engine and the API see it (contentId only on CONTENT nodes). */
export const toNode = (row: Pick<NodeRow, 'id' | 'type' | 'config' | 'contentId' | 'position'>) =>
  ({
    id: row.id,
    type: row.type,
    config: row.config,
    ...(row.contentId !== null ? { contentId: row.contentId } : {}),
    position: row.position,
  }) as unknown as JourneyNode;

export const toEdge = (row: Pick<EdgeRow, 'sourceNodeId' | 'targetNodeId' | 'label'>): JourneyEdge =>
  row.label === null
    ? { sourceNodeId: row.sourceNodeId, targetNodeId: row.targetNodeId }
    : { sourceNodeId: row.sourceNodeId, targetNodeId: row.targetNodeId, label: row.label };

export interface Canvas {
  nodes: JourneyNode[];
  edges: JourneyEdge[];
}

/** The canvas of one journey of the tenant, in canvas order (empty when there is none). */
export async function loadCanvas(exec: Executor, tenantId: string, journeyId: string): Promise<Canvas> {
  const canvas = (await loadCanvases(exec, [journeyId], tenantId)).get(journeyId);
  return canvas ? { nodes: canvas.nodes, edges: canvas.edges } : { nodes: [], edges: [] };
}

/**
 * The canvases of several journeys with the canvas version they are, in one statement: nodes,
 * edges and version come from one snapshot, so a `PUT /canvas` committing meanwhile can never mix
 * two versions. Without `tenantId`, any tenant's (the ids are the caller's, already checked).
 */
export async function loadCanvases(
  exec: Executor,
  journeyIds: string[],
  tenantId?: string,
): Promise<Map<string, Canvas & { version: number }>> {
  const byJourney = new Map<string, Canvas & { version: number }>();
  if (journeyIds.length === 0) return byJourney;
  type NodeRow = { id: string; type: string; config: unknown; contentId: string | null; position: unknown };
  type EdgeRow = { s: string; t: string; l: string | null };
  const rows = await rawQuery<{ id: string; canvas_version: number; nodes: unknown; edges: unknown }>(
    exec,
    `select j.id, j.canvas_version,
       coalesce((select jsonb_agg(jsonb_build_object('id', n.id, 'type', n.type, 'config', n.config,
                   'contentId', n.content_id, 'position', n.position) order by n.ord)
                 from journey_nodes n where n.journey_id = j.id), '[]'::jsonb) as nodes,
       coalesce((select jsonb_agg(jsonb_build_object('s', e.source_node_id, 't', e.target_node_id, 'l', e.label)
                   order by e.ord)
                 from journey_edges e where e.journey_id = j.id), '[]'::jsonb) as edges
     from journeys j where j.id = any($1::uuid[]) and ($2::uuid is null or j.tenant_id = $2::uuid)`,
    [journeyIds, tenantId ?? null],
  );
  for (const r of rows) {
    byJourney.set(r.id, {
      version: Number(r.canvas_version),
      nodes: (jsonValue<NodeRow[]>(r.nodes) ?? []).map((n) => toNode(n as Parameters<typeof toNode>[0])),
      edges: (jsonValue<EdgeRow[]>(r.edges) ?? []).map((e) =>
        toEdge({ sourceNodeId: e.s, targetNodeId: e.t, label: e.l }),
      ),
    });
  }
  return byJourney;
}

/** The triggerType of a canvas's first TRIGGER node, or null. */
export function triggerTypeOf(canvas: Canvas): string | null {
  const trigger = canvas.nodes.find((n) => n.type === 'TRIGGER');
  return trigger?.type === 'TRIGGER' ? trigger.config.triggerType : null;
}

/** Counts of nodes, edges and enrollments of each journey. */
export async function countsOf(exec: Executor, tenantId: string, ids: string[]) {
  const out = new Map<string, { nodes: number; edges: number; enrollments: number }>(
    ids.map((id) => [id, { nodes: 0, edges: 0, enrollments: 0 }]),
  );
  if (ids.length === 0) return out;
  const rows = await rawQuery<{ id: string; nodes: string; edges: string; enrollments: string }>(
    exec,
    `select j.id,
       (select count(*) from journey_nodes n where n.journey_id = j.id) as nodes,
       (select count(*) from journey_edges e where e.journey_id = j.id) as edges,
       (select count(*) from journey_enrollments x where x.journey_id = j.id) as enrollments
     from journeys j where j.tenant_id = $1 and j.id = any($2::uuid[])`,
    [tenantId, ids],
  );
  for (const r of rows) {
    out.set(r.id, { nodes: Number(r.nodes), edges: Number(r.edges), enrollments: Number(r.enrollments) });
  }
  return out;
}

export const toListItem = (
  row: JourneyRow,
  count: { nodes: number; edges: number; enrollments: number },
) => ({
  id: row.id,
  tenantId: row.tenantId,
  siteId: row.siteId,
  name: row.name,
  description: row.description,
  status: row.status,
  audienceId: row.audienceId,
  settings: row.settings,
  goalConfig: row.goalConfig,
  allowAnonymous: row.allowAnonymous,
  publishedAt: row.publishedAt,
  archivedAt: row.archivedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  _count: count,
});

/** The full record: the journey, its canvas, its audience (id, name, description) and counts. */
export async function journeyRecordOf(exec: Executor, row: JourneyRow) {
  const canvas = await loadCanvas(exec, row.tenantId, row.id);
  const count = (await countsOf(exec, row.tenantId, [row.id])).get(row.id)!;
  let audience: { id: string; name: string; description: string | null } | null = null;
  if (row.audienceId) {
    const [a] = await exec
      .select({ id: audiences.id, name: audiences.name, description: audiences.description })
      .from(audiences)
      .where(and(eq(audiences.tenantId, row.tenantId), eq(audiences.id, row.audienceId)))
      .limit(1);
    audience = a ?? null;
  }
  return {
    ...toListItem(row, count),
    audience,
    nodes: canvas.nodes.map((n) => ({
      id: n.id,
      type: n.type,
      config: n.config as Record<string, unknown>,
      contentId: n.type === 'CONTENT' ? n.contentId : null,
      position: n.position,
    })),
    edges: canvas.edges.map((e) => ({ ...e, label: e.label ?? null })),
  };
}
export type JourneyRecord = Awaited<ReturnType<typeof journeyRecordOf>>;

// ---- publish validation ------------------------------------------------------------------------

/**
 * Which CONTENT node references exist and may be shown (not archived): one query per kind of
 * table, whatever the canvas size. Keys `contentType:contentId`.
 */
export async function existingContent(exec: Executor, tenantId: string, nodes: JourneyNode[]) {
  const wanted = new Map<JourneyContentType, Set<string>>();
  for (const n of nodes) {
    if (n.type !== 'CONTENT') continue;
    const set = wanted.get(n.config.contentType) ?? new Set<string>();
    set.add(n.contentId);
    wanted.set(n.config.contentType, set);
  }
  const found = new Set<string>();
  for (const [type, ids] of wanted) {
    const list = [...ids];
    let rows: { id: string }[];
    if (type === 'flow') {
      rows = await exec
        .select({ id: flows.id })
        .from(flows)
        .where(and(eq(flows.tenantId, tenantId), inArray(flows.id, list), ne(flows.status, 'ARCHIVED')));
    } else if (type === 'nps-survey') {
      rows = await exec
        .select({ id: npsSurveys.id })
        .from(npsSurveys)
        .where(
          and(
            eq(npsSurveys.tenantId, tenantId),
            inArray(npsSurveys.id, list),
            ne(npsSurveys.status, 'ARCHIVED'),
          ),
        );
    } else {
      rows = await exec
        .select({ id: contentItems.id })
        .from(contentItems)
        .where(
          and(
            eq(contentItems.tenantId, tenantId),
            sql`${contentItems.type} = ${CONTENT_SLUGS[type]}`,
            inArray(contentItems.id, list),
            ne(contentItems.status, 'ARCHIVED'),
          ),
        );
    }
    for (const r of rows) found.add(`${type}:${r.id}`);
  }
  return found;
}

/** The publish issues of a canvas with this goal (DECISIONS §6 and the journeys issue). */
export async function publishIssues(
  exec: Executor,
  tenantId: string,
  canvas: Canvas,
  goalConfig: GoalConfig | null,
): Promise<PublishIssue[]> {
  const content = await existingContent(exec, tenantId, canvas.nodes);
  const graph: JourneyGraph = { nodes: canvas.nodes, edges: canvas.edges, goalConfig };
  return validateForPublish(graph, {
    contentExists: (type, id) => content.has(`${type}:${id}`),
  });
}

/** 400 VALIDATION_ERROR naming each offending node (`details[].path` = `nodes[<i>]`, and its id). */
export async function assertPublishable(
  exec: Executor,
  tenantId: string,
  canvas: Canvas,
  goalConfig: GoalConfig | null,
): Promise<void> {
  const issues = await publishIssues(exec, tenantId, canvas, goalConfig);
  if (issues.length === 0) return;
  throw validationError(
    issues.map((i) => ({
      path: i.path,
      message: i.message,
      ...(i.nodeId !== undefined ? { nodeId: i.nodeId } : {}),
    })),
    `The journey cannot be published: ${issues[0]!.message}`,
  );
}

export interface CatalogEntry {
  contentType: JourneyContentType;
  id: string;
  name: string;
}

/**
 * What a CONTENT node may show: the tenant's flows, content items and NPS surveys that are not
 * archived, most recently updated first (the AI module offers them to the model that drafts a
 * journey, so its CONTENT nodes point at real content).
 */
export async function contentCatalog(
  exec: Executor,
  tenantId: string,
  limit: number,
): Promise<CatalogEntry[]> {
  const slugToType = new Map(Object.entries(CONTENT_SLUGS).map(([type, slug]) => [slug, type]));
  const rows = await rawQuery<{ kind: string; id: string; name: string }>(
    exec,
    `select kind, id, name from (
       select 'flows' as kind, id, name, updated_at from flows where tenant_id = $1 and status <> 'ARCHIVED'
       union all
       select type, id, name, updated_at from content_items where tenant_id = $1 and status <> 'ARCHIVED'
       union all
       select 'nps-surveys', id, name, updated_at from nps_surveys where tenant_id = $1 and status <> 'ARCHIVED'
     ) c order by updated_at desc, id limit $2`,
    [tenantId, limit],
  );
  return rows.flatMap((r) => {
    const contentType = slugToType.get(r.kind) as JourneyContentType | undefined;
    return contentType ? [{ contentType, id: r.id, name: r.name }] : [];
  });
}
