import type { Executor } from '../../db/client.js';
import { contentNotFound, validationError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { type ItemKey, versionState } from '../versions/index.js';
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
import { findAudienceSummary, listShowableCatalog, listShowableIds } from './store/content.js';
import {
  type CanvasEdgeRow,
  type CanvasNodeRow,
  countCanvasAndEnrollments,
  findJourney as findJourneyRow,
  type JourneyRow,
  listCanvases,
} from './store/journeys.js';

export type { JourneyRow };

export const journeyMissing = () => contentNotFound('Journey');

/** The tenant's journey, or null; a malformed id simply matches nothing. */
export async function findJourney(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<JourneyRow | null> {
  if (!isUuid(id)) return null;
  return (await findJourneyRow(exec, tenantId, id, opts)) ?? null;
}

/** A stored node as the engine and the API see it (contentId only on CONTENT nodes). */
export const toNode = (row: CanvasNodeRow) =>
  ({
    id: row.id,
    type: row.type,
    config: row.config,
    ...(row.contentId !== null ? { contentId: row.contentId } : {}),
    position: row.position,
  }) as unknown as JourneyNode;

export const toEdge = (row: CanvasEdgeRow): JourneyEdge =>
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
  for (const r of await listCanvases(exec, journeyIds, tenantId)) {
    byJourney.set(r.id, { version: r.canvasVersion, nodes: r.nodes.map(toNode), edges: r.edges.map(toEdge) });
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
  for (const { id, ...counts } of await countCanvasAndEnrollments(exec, tenantId, ids)) out.set(id, counts);
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

export const journeyKey = (tenantId: string, itemId: string): ItemKey => ({
  tenantId,
  itemType: 'journey',
  itemId,
});

/**
 * A journey's versioned fields (docs/versions.md), as a version holds them and migrations 0090 and
 * 0098 wrote them: nodes without a null contentId, edges without a null label.
 */
export const journeySnapshot = (row: JourneyRow, canvas: Canvas) => ({
  name: row.name,
  description: row.description,
  siteId: row.siteId,
  audienceId: row.audienceId,
  settings: row.settings,
  goalConfig: row.goalConfig,
  allowAnonymous: row.allowAnonymous,
  nodes: canvas.nodes as unknown as Record<string, unknown>[],
  edges: canvas.edges as unknown as Record<string, unknown>[],
});
export type JourneySnapshot = ReturnType<typeof journeySnapshot>;

/**
 * The full record: the journey, its canvas (the working copy), its audience (id, name,
 * description), counts, its live version and whether the working copy differs from it.
 */
export async function journeyRecordOf(exec: Executor, row: JourneyRow) {
  const canvas = await loadCanvas(exec, row.tenantId, row.id);
  const count = (await countsOf(exec, row.tenantId, [row.id])).get(row.id)!;
  let audience: { id: string; name: string; description: string | null } | null = null;
  if (row.audienceId) audience = (await findAudienceSummary(exec, row.tenantId, row.audienceId)) ?? null;
  const state = await versionState(exec, journeyKey(row.tenantId, row.id), journeySnapshot(row, canvas));
  return {
    ...toListItem(row, count),
    ...state,
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
    const kind =
      type === 'flow'
        ? ({ table: 'flows' } as const)
        : type === 'nps-survey'
          ? ({ table: 'nps-surveys' } as const)
          : ({ table: 'content', slug: CONTENT_SLUGS[type] } as const);
    for (const id of await listShowableIds(exec, tenantId, kind, [...ids])) found.add(`${type}:${id}`);
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
  const rows = await listShowableCatalog(exec, tenantId, limit);
  return rows.flatMap((r) => {
    const contentType = slugToType.get(r.kind) as JourneyContentType | undefined;
    return contentType ? [{ contentType, id: r.id, name: r.name }] : [];
  });
}
