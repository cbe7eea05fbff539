import { z } from 'zod';
import { dataOf, jsonObject, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { versionFields } from '../versions/index.js';
import { ENROLLMENT_STATUSES } from './engine/machine.js';
import {
  canvasSchema,
  goalConfigSchema,
  JOURNEY_CONTENT_TYPES,
  journeyEdgeSchema,
  journeyNodeSchema,
  journeySettingsSchema,
  MAX_EDGES,
  MAX_NODES,
  NODE_TYPES,
} from './engine/schemas.js';
import { JOURNEY_STATUSES } from './store/journeys.js';

/**
 * The wire shapes of `/api/journeys` (the spec's Journey sections, DECISIONS §6). The canvas
 * shapes themselves are the engine's (`engine/schemas.ts`): `PUT /canvas` and create
 * check exactly those.
 */

const nodes = z.array(journeyNodeSchema).max(MAX_NODES);
const edges = z.array(journeyEdgeSchema).max(MAX_EDGES);

/** Forwards the canvas checks (unique node ids, edges naming nodes of the body) to `body`'s paths. */
function checkCanvas(body: { nodes?: unknown; edges?: unknown }, ctx: z.RefinementCtx) {
  if (body.nodes === undefined && body.edges === undefined) return;
  const parsed = canvasSchema.safeParse({ nodes: body.nodes ?? [], edges: body.edges ?? [] });
  if (parsed.success) return;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({ code: 'custom', path: issue.path as (string | number)[], message: issue.message });
  }
}

const fields = {
  name: z.string().trim().min(1).max(255),
  siteId: uuid,
  description: z.string().max(5000).nullable(),
  audienceId: uuid.nullable(),
  settings: journeySettingsSchema,
  goalConfig: goalConfigSchema.nullable(),
  allowAnonymous: z.boolean(),
};

export const createJourneyBody = z
  .object({
    name: fields.name,
    siteId: fields.siteId,
    description: fields.description.optional(),
    audienceId: fields.audienceId.optional(),
    settings: fields.settings.optional(),
    goalConfig: fields.goalConfig.optional(),
    allowAnonymous: fields.allowAnonymous.optional(),
    nodes: nodes.optional().describe('node ids are optional; edges may only name nodes whose id is sent'),
    edges: edges.optional(),
  })
  .superRefine(checkCanvas);
export type CreateJourneyInput = z.output<typeof createJourneyBody>;

export const updateJourneyBody = z.object(fields).partial();
export type UpdateJourneyInput = z.output<typeof updateJourneyBody>;

export const canvasBody = canvasSchema;
export type CanvasBody = z.output<typeof canvasBody>;

export const listJourneysQuery = paginationQuery().extend({
  status: z.enum(JOURNEY_STATUSES).optional().describe('Default: every status but ARCHIVED'),
  siteId: uuid.optional(),
  search: z.string().max(255).optional().describe('Case-insensitive substring of the name'),
});
export type ListJourneysQuery = z.output<typeof listJourneysQuery>;

export const listEnrollmentsQuery = paginationQuery().extend({
  status: z.enum(ENROLLMENT_STATUSES).optional(),
});
export type ListEnrollmentsQuery = z.output<typeof listEnrollmentsQuery>;

const externalId = z.string().trim().min(1).max(255);
export const enrollBody = z
  .object({
    userId: externalId.optional().describe('the end user by the userId the SDK identified them with'),
    anonymousId: externalId
      .optional()
      .describe('an anonymous visitor (only when the journey allows anonymous enrollment)'),
  })
  .refine((b) => (b.userId === undefined) !== (b.anonymousId === undefined), {
    message: 'send exactly one of userId and anonymousId',
    path: ['userId'],
  });
export type EnrollInput = z.output<typeof enrollBody>;

// ---- records -----------------------------------------------------------------------------------

export const journeyNodeRecord = z
  .object({
    id: uuid,
    type: z.enum(NODE_TYPES),
    config: jsonObject,
    contentId: uuid.nullable(),
    position: z.object({ x: z.number(), y: z.number() }),
  })
  .meta({ id: 'JourneyNode' });

export const journeyEdgeRecord = z
  .object({ sourceNodeId: uuid, targetNodeId: uuid, label: z.string().nullable() })
  .meta({ id: 'JourneyEdge' });

const counts = z.object({
  nodes: z.number().int(),
  edges: z.number().int(),
  enrollments: z.number().int(),
});

const journeyBase = {
  id: uuid,
  tenantId: uuid,
  siteId: uuid,
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(JOURNEY_STATUSES),
  audienceId: uuid.nullable(),
  settings: jsonObject,
  goalConfig: jsonObject.nullable(),
  allowAnonymous: z.boolean(),
  publishedAt: timestamp.nullable(),
  archivedAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
  _count: counts,
};

export const journeyListItem = z.object(journeyBase).meta({ id: 'JourneyListItem' });

export const journeyRecord = z
  .object({
    ...journeyBase,
    ...versionFields,
    audience: z.object({ id: uuid, name: z.string(), description: z.string().nullable() }).nullable(),
    nodes: z.array(journeyNodeRecord),
    edges: z.array(journeyEdgeRecord),
  })
  .meta({ id: 'Journey' });

export const enrollmentRecord = z
  .object({
    id: uuid,
    journeyId: uuid,
    endUserId: uuid,
    status: z.enum(ENROLLMENT_STATUSES),
    currentNodeId: uuid.nullable(),
    enrolledAt: timestamp,
    endedAt: timestamp.nullable(),
    goalReachedAt: timestamp.nullable(),
    endUser: z.object({
      id: uuid,
      userId: z.string().nullable().describe('the external id, null for an anonymous visitor'),
      anonymousId: z.string().nullable(),
      traits: jsonObject,
    }),
  })
  .meta({ id: 'JourneyEnrollment' });

const nodeStats = z.object({
  nodeId: uuid,
  type: z.enum(NODE_TYPES),
  entered: z.number().int(),
  exited: z.number().int(),
  waiting: z.number().int().describe('enrollments waiting at the node now'),
  enrollments: z.number().int().describe('distinct enrollments that entered the node'),
  goalReached: z.number().int(),
  conversion: z.number().describe('goalReached / enrollments, percent, one decimal'),
});

export const journeyAnalytics = z
  .object({
    journeyId: uuid,
    enrollments: z.number().int(),
    statuses: z.object(Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, z.number().int()]))),
    conversion: z.number().describe('goal_reached / enrollments, percent, one decimal'),
    medianTimeToGoalMs: z.number().nullable(),
    nodes: z.array(nodeStats),
  })
  .meta({ id: 'JourneyAnalytics' });

export const journeyResponse = dataOf(journeyRecord);
export const journeyList = listOf(journeyListItem);
export const enrollmentResponse = dataOf(enrollmentRecord);
export const enrollmentList = listOf(enrollmentRecord);
export const analyticsResponse = dataOf(journeyAnalytics);

export { JOURNEY_CONTENT_TYPES };
