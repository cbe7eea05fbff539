import { z } from 'zod';
import { ruleTreeSchema } from '../../../engine/rule-schema.js';
import type { RuleNode } from '../../../engine/rules.js';
import { MATCH_TYPES, MAX_URL_PATTERN_LENGTH, patternProblem } from '../../../engine/url-match.js';

/**
 * The shapes of a journey canvas (DECISIONS §6): node types and their configs, edges, the goal
 * and the settings. `PUT /canvas` checks exactly these (shapes, plus edges naming nodes of the same
 * body); the graph rules (one TRIGGER, reachability, edge labels, cycles) are `validate.ts`'s, at
 * publish. Every number and string is bounded; unknown keys are stripped.
 */

export const NODE_TYPES = [
  'TRIGGER',
  'CONTENT',
  'WAIT',
  'WAIT_FOR_EVENT',
  'CONDITION',
  'SPLIT',
  'GOAL_CHECK',
  'EXIT',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const TRIGGER_TYPES = ['URL_MATCH', 'CUSTOM_EVENT', 'ELEMENT_CLICK', 'MANUAL'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/**
 * What a CONTENT node shows, in the singular the spec uses ("flow, tooltip"). The content
 * module's slugs are the plural (`CONTENT_SLUGS`); NPS surveys are their own resource.
 */
export const JOURNEY_CONTENT_TYPES = [
  'flow',
  'tooltip',
  'beacon',
  'task-list',
  'survey',
  'announcement',
  'self-help',
  'nps-survey',
] as const;
export type JourneyContentType = (typeof JOURNEY_CONTENT_TYPES)[number];

/** The route slug of each content type (`/api/flows`, `/api/content/<slug>`, `/api/nps-surveys`). */
export const CONTENT_SLUGS: Record<JourneyContentType, string> = {
  flow: 'flows',
  tooltip: 'tooltips',
  beacon: 'beacons',
  'task-list': 'task-lists',
  survey: 'surveys',
  announcement: 'announcements',
  'self-help': 'self-help',
  'nps-survey': 'nps-surveys',
};

export const GOAL_TYPES = ['event', 'page_visit', 'attribute_match', 'flow_completed'] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

/** Nodes and edges a canvas may hold: far beyond a hand-drawn journey, small enough to check at once. */
export const MAX_NODES = 500;
export const MAX_EDGES = 1000;
export const MAX_SPLIT_BRANCHES = 10;
export const MAX_LABEL_LENGTH = 100;
export const MAX_EVENT_NAME_LENGTH = 255;
export const MAX_SELECTOR_LENGTH = 1000;
/** WAIT durations and WAIT_FOR_EVENT timeouts: one second to one year. */
export const MIN_WAIT_MS = 1000;
export const MAX_WAIT_MS = 365 * 86_400_000;
export const MAX_DEADLINE_DAYS = 3650;
export const MAX_COOLDOWN_MS = 10 * 365 * 86_400_000;
/** Canvas coordinates: wide enough for any screen layout, finite. */
const MAX_COORDINATE = 1_000_000;

/** Ids are lower-cased, as PostgreSQL prints a uuid, so an edge matches its node whatever the case sent. */
const uuid = z.uuid().toLowerCase();
const eventName = z.string().trim().min(1).max(MAX_EVENT_NAME_LENGTH);
const label = z.string().trim().min(1).max(MAX_LABEL_LENGTH);
const waitMs = z.number().int().min(MIN_WAIT_MS).max(MAX_WAIT_MS);

/** `{ matchType?, pattern }` as flows and content use it (`matchType` defaults to contains). */
export const urlRuleSchema = z
  .object({
    matchType: z.enum(MATCH_TYPES).optional().describe('default contains'),
    pattern: z.string().min(1).max(MAX_URL_PATTERN_LENGTH),
  })
  .superRefine((rule, ctx) => {
    const problem = patternProblem(rule.matchType, rule.pattern);
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  });

// ---- node configs ------------------------------------------------------------------------------

export const triggerConfigSchema = z.discriminatedUnion('triggerType', [
  z.object({ triggerType: z.literal('CUSTOM_EVENT'), triggerConfig: z.object({ eventName }) }),
  z.object({ triggerType: z.literal('URL_MATCH'), triggerConfig: urlRuleSchema }),
  z.object({
    triggerType: z.literal('ELEMENT_CLICK'),
    triggerConfig: z.object({ selector: z.string().trim().min(1).max(MAX_SELECTOR_LENGTH) }),
  }),
  z.object({ triggerType: z.literal('MANUAL'), triggerConfig: z.object({}).default({}) }),
]);
export type TriggerConfig = z.output<typeof triggerConfigSchema>;

/** Bounds of a delivery priority, as flows and content items have them (docs/delivery-policy.md). */
export const MAX_PRIORITY = 1_000_000;

export const contentConfigSchema = z.object({
  contentType: z.enum(JOURNEY_CONTENT_TYPES),
  priority: z
    .number()
    .int()
    .min(-MAX_PRIORITY)
    .max(MAX_PRIORITY)
    .optional()
    .describe(
      "delivery priority of the item when this step serves it (absent: the item's own); higher first, may be negative",
    ),
});
export const waitConfigSchema = z.object({ duration: waitMs.describe('milliseconds') });
export const waitForEventConfigSchema = z.object({
  eventName,
  timeout: waitMs.optional().describe('milliseconds; the `timeout` edge is taken when it passes first'),
});
export const conditionConfigSchema = z.object({ ruleTree: ruleTreeSchema });

export const splitConfigSchema = z
  .object({
    branches: z
      .array(z.object({ label, percentage: z.number().int().min(0).max(100) }))
      .min(2)
      .max(MAX_SPLIT_BRANCHES),
  })
  .superRefine((config, ctx) => {
    // Labels name the edges: two alike could never be told apart. (The sum of 100 is checked at
    // publish, so a draft may be saved while its percentages are being balanced.)
    const seen = new Set<string>();
    config.branches.forEach((b, i) => {
      if (seen.has(b.label)) {
        ctx.addIssue({
          code: 'custom',
          path: ['branches', i, 'label'],
          message: 'branch labels must differ',
        });
      }
      seen.add(b.label);
    });
  });

const emptyConfig = z.object({}).default({});

// ---- nodes -------------------------------------------------------------------------------------

const position = z.object({
  x: z.number().min(-MAX_COORDINATE).max(MAX_COORDINATE),
  y: z.number().min(-MAX_COORDINATE).max(MAX_COORDINATE),
});

const nodeBase = { id: uuid.optional(), position };

/**
 * `{ id?, type, config, contentId?, position }`, one shape per type. `contentId` belongs to CONTENT
 * nodes (required there); on other types it is stripped like any unknown key.
 */
export const journeyNodeSchema = z.discriminatedUnion('type', [
  z.object({ ...nodeBase, type: z.literal('TRIGGER'), config: triggerConfigSchema }),
  z.object({ ...nodeBase, type: z.literal('CONTENT'), config: contentConfigSchema, contentId: uuid }),
  z.object({ ...nodeBase, type: z.literal('WAIT'), config: waitConfigSchema }),
  z.object({ ...nodeBase, type: z.literal('WAIT_FOR_EVENT'), config: waitForEventConfigSchema }),
  z.object({ ...nodeBase, type: z.literal('CONDITION'), config: conditionConfigSchema }),
  z.object({ ...nodeBase, type: z.literal('SPLIT'), config: splitConfigSchema }),
  z.object({ ...nodeBase, type: z.literal('GOAL_CHECK'), config: emptyConfig }),
  z.object({ ...nodeBase, type: z.literal('EXIT'), config: emptyConfig }),
]);
export type JourneyNodeInput = z.output<typeof journeyNodeSchema>;
/** A stored node: every node has its id once saved. */
export type JourneyNode = JourneyNodeInput & { id: string };
export type NodeOf<T extends NodeType> = Extract<JourneyNode, { type: T }>;

export const journeyEdgeSchema = z.object({
  sourceNodeId: uuid,
  targetNodeId: uuid,
  label: label.optional(),
});
export type JourneyEdge = z.output<typeof journeyEdgeSchema>;

/**
 * `{ nodes, edges }` of `PUT /canvas` (and of create): node shapes, unique node ids, and edges
 * naming nodes of this same body (so an edge can only point at a node whose id is supplied).
 */
export const canvasSchema = z
  .object({
    nodes: z.array(journeyNodeSchema).max(MAX_NODES),
    edges: z.array(journeyEdgeSchema).max(MAX_EDGES),
  })
  .superRefine((canvas, ctx) => {
    const ids = new Set<string>();
    canvas.nodes.forEach((node, i) => {
      if (node.id === undefined) return;
      const id = node.id;
      if (ids.has(id))
        ctx.addIssue({ code: 'custom', path: ['nodes', i, 'id'], message: 'node ids must differ' });
      ids.add(id);
    });
    canvas.edges.forEach((edge, i) => {
      for (const end of ['sourceNodeId', 'targetNodeId'] as const) {
        if (!ids.has(edge[end])) {
          ctx.addIssue({
            code: 'custom',
            path: ['edges', i, end],
            message: 'must be the id of a node in this canvas',
          });
        }
      }
    });
  });
export type CanvasInput = z.output<typeof canvasSchema>;

// ---- goal --------------------------------------------------------------------------------------

const deadline = z
  .number()
  .int()
  .min(1)
  .max(MAX_DEADLINE_DAYS)
  .optional()
  .describe('days from enrollment to reach the goal; past it the enrollment is abandoned');

/**
 * attribute_match takes `{ ruleTree }` (audience syntax) or, as a shorthand, a single rule
 * `{ field, operator, value }`, stored as `{ ruleTree: <that rule> }`.
 */
const attributeMatchConfig = z.preprocess(
  (config) =>
    typeof config === 'object' && config !== null && !Array.isArray(config) && !('ruleTree' in config)
      ? { ruleTree: config }
      : config,
  z.object({ ruleTree: ruleTreeSchema }),
);

export const goalConfigSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), config: z.object({ eventName }), deadline }),
  z.object({ type: z.literal('page_visit'), config: urlRuleSchema, deadline }),
  z.object({ type: z.literal('attribute_match'), config: attributeMatchConfig, deadline }),
  z.object({ type: z.literal('flow_completed'), config: z.object({ flowId: uuid }), deadline }),
]);
export type GoalConfig = z.output<typeof goalConfigSchema>;
export type AttributeGoalConfig = { ruleTree: RuleNode };

// ---- settings ----------------------------------------------------------------------------------

/**
 * Whether a user may enroll again: `never` (default: once per journey), `after_exit` (once the
 * previous enrollment has ended), or `{ cooldownMs }` (once it has ended at least that long ago).
 */
export const reentrySchema = z.union(
  [
    z.enum(['never', 'after_exit']),
    // multipleOf rather than int: int aborts the union, which would hide the precise path.
    z.object({
      cooldownMs: z.number().multipleOf(1, 'must be whole milliseconds').min(0).max(MAX_COOLDOWN_MS),
    }),
  ],
  { error: 'reentry is "never", "after_exit" or { cooldownMs }' },
);
export type Reentry = z.output<typeof reentrySchema>;

/** Journey settings: `reentry` is the engine's; other keys are kept as sent (the dashboard's). */
export const journeySettingsSchema = z.looseObject({ reentry: reentrySchema.default('never') });
export type JourneySettings = z.output<typeof journeySettingsSchema>;
