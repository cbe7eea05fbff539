import { z } from 'zod';
import { targetFingerprint } from '../../engine/fingerprint.js';
import { MATCH_TYPES, MAX_URL_PATTERN_LENGTH, patternProblem } from '../../engine/url-match.js';
import {
  dataOf,
  jsonObject,
  listOf,
  nonNegativeInt32,
  timestamp,
  uuid,
} from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { versionFields } from '../versions/index.js';
import { FLOW_STATUSES } from './store.js';

export const FLOW_TEMPLATES = [
  'PRODUCT_TOUR',
  'FEATURE_WALKTHROUGH',
  'INTERACTIVE_DEMO',
  'ANNOUNCEMENT_SEQUENCE',
  'CUSTOM',
] as const;
export type FlowTemplate = (typeof FLOW_TEMPLATES)[number];

export const FLOW_STEP_TYPES = [
  'TOOLTIP',
  'MODAL',
  'BEACON',
  'BANNER',
  'SLIDEOUT',
  'VIDEO',
  'FORM',
  'CLICK',
  'NAVIGATE',
  'WAIT',
  'INPUT',
  'SCROLL',
] as const;
export type FlowStepType = (typeof FLOW_STEP_TYPES)[number];

/** Steps a flow may hold, inline or added one by one. */
export const MAX_FLOW_STEPS = 200;

// ---- trigger ---------------------------------------------------------------------------------

const urlMatchConfig = z
  .object({
    matchType: z.enum(MATCH_TYPES).default('contains'),
    pattern: z.string().min(1).max(MAX_URL_PATTERN_LENGTH),
  })
  .superRefine((config, ctx) => {
    const problem = patternProblem(config.matchType, config.pattern);
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  });

/** `{ type: URL_MATCH | MANUAL, config }`, a single object. MANUAL's config is free-form and defaults to `{}`. */
export const flowTrigger = z.discriminatedUnion('type', [
  z.object({ type: z.literal('URL_MATCH'), config: urlMatchConfig }),
  z.object({ type: z.literal('MANUAL'), config: jsonObject.default({}) }),
]);
export type FlowTrigger = z.output<typeof flowTrigger>;

const triggerOut = z
  .object({ type: z.enum(['URL_MATCH', 'MANUAL']), config: jsonObject.optional() })
  .nullable();

// ---- steps -----------------------------------------------------------------------------------

const stepFields = {
  type: z.enum(FLOW_STEP_TYPES),
  targetSelector: z.string().max(1000).nullable().optional(),
  content: jsonObject.optional(),
  settings: jsonObject.optional(),
};

/** A step in `steps` of a flow create/PATCH: its position in the array is its order (`order` is ignored). */
export const inlineStepBody = z.object({
  ...stepFields,
  order: nonNegativeInt32().optional().describe('Ignored: the array position is the order'),
});
export type InlineStep = z.output<typeof inlineStepBody>;

/** The picker's fingerprint of the target (issue 40); null forgets it. A new targetSelector without one forgets it too. */
const stepFingerprint = targetFingerprint.nullable().optional();

export const createStepBody = z.object({
  ...stepFields,
  targetFingerprint: stepFingerprint,
  order: nonNegativeInt32()
    .optional()
    .describe('Zero-based position to insert at; absent or past the end appends'),
});
export type CreateStepInput = z.output<typeof createStepBody>;

export const updateStepBody = z.object({
  type: stepFields.type.optional(),
  targetSelector: stepFields.targetSelector,
  targetFingerprint: stepFingerprint,
  content: stepFields.content,
  settings: stepFields.settings,
  order: nonNegativeInt32().optional().describe('Moves the step; past the end moves it last'),
});
export type UpdateStepInput = z.output<typeof updateStepBody>;

export const reorderStepsBody = z.object({
  stepIds: z.array(z.string()).max(MAX_FLOW_STEPS).describe('Every step id of the flow, in the new order'),
});

// Named (`FlowStep`, `Flow`) in the OpenAPI document: the SDK's session delivers these records too.
export const flowStep = z
  .object({
    id: uuid,
    flowId: uuid,
    tenantId: uuid,
    type: z.enum(FLOW_STEP_TYPES),
    order: z.number().int(),
    targetSelector: z.string().nullable(),
    targetFingerprint: jsonObject
      .nullable()
      .describe(
        "The target's fingerprint: the one its lookups reported most often for this selector, or the element picker's",
      ),
    content: jsonObject,
    settings: jsonObject,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'FlowStep' });

// ---- flows -----------------------------------------------------------------------------------

const flowFields = {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(5000),
  siteId: uuid,
  template: z.enum(FLOW_TEMPLATES),
  settings: jsonObject,
  trigger: flowTrigger.nullable(),
  steps: z.array(inlineStepBody).max(MAX_FLOW_STEPS),
  audienceId: uuid.nullable(),
  scheduledAt: timestamp.nullable(),
  expiresAt: timestamp.nullable(),
  priority: z
    .number()
    .int()
    .min(-1_000_000)
    .max(1_000_000)
    .describe(
      'delivery priority: higher first, may be negative (default 0); ties: most recently published first',
    ),
  bypassCaps: z.boolean().describe("never held back by the tenant's delivery policy (caps, cooldown)"),
};

export const createFlowBody = z.object({
  name: flowFields.name,
  siteId: flowFields.siteId,
  template: flowFields.template,
  description: flowFields.description.nullable().optional(),
  settings: flowFields.settings.optional(),
  trigger: flowFields.trigger.optional(),
  steps: flowFields.steps.optional(),
  audienceId: flowFields.audienceId.optional(),
  scheduledAt: flowFields.scheduledAt.optional(),
  expiresAt: flowFields.expiresAt.optional(),
  priority: flowFields.priority.optional(),
  bypassCaps: flowFields.bypassCaps.optional(),
});
export type CreateFlowInput = z.output<typeof createFlowBody>;

export const updateFlowBody = z.object({
  name: flowFields.name.optional(),
  siteId: flowFields.siteId.optional(),
  template: flowFields.template.optional(),
  description: flowFields.description.nullable().optional(),
  settings: flowFields.settings.optional(),
  trigger: flowFields.trigger.optional(),
  steps: flowFields.steps.optional().describe('Replaces the whole step list (new step ids)'),
  audienceId: flowFields.audienceId.optional(),
  scheduledAt: flowFields.scheduledAt.optional(),
  expiresAt: flowFields.expiresAt.optional(),
  priority: flowFields.priority.optional(),
  bypassCaps: flowFields.bypassCaps.optional(),
  status: z
    .enum(FLOW_STATUSES)
    .optional()
    .describe('Only restores an ARCHIVED flow as DRAFT or PUBLISHED; other changes are 409'),
});
export type UpdateFlowInput = z.output<typeof updateFlowBody>;

const flowBase = {
  id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  template: z.enum(FLOW_TEMPLATES),
  status: z.enum(FLOW_STATUSES),
  tenantId: uuid,
  siteId: uuid,
  audienceId: uuid.nullable(),
  trigger: triggerOut,
  scheduledAt: timestamp.nullable(),
  expiresAt: timestamp.nullable(),
  priority: z.number().int().describe('delivery priority: higher first (default 0)'),
  bypassCaps: z.boolean().describe("never held back by the tenant's delivery policy"),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const flowListItem = z.object({ ...flowBase, _count: z.object({ steps: z.number().int() }) });

export const flowRecord = z
  .object({
    ...flowBase,
    settings: jsonObject,
    publishedAt: timestamp.nullable(),
    archivedAt: timestamp.nullable(),
    steps: z.array(flowStep),
    ...versionFields,
  })
  .meta({ id: 'Flow' });

export const listFlowsQuery = paginationQuery().extend({
  status: z.enum(FLOW_STATUSES).optional().describe('Default: every status but ARCHIVED'),
  template: z.enum(FLOW_TEMPLATES).optional(),
  siteId: uuid.optional(),
  search: z.string().max(255).optional().describe('Case-insensitive substring of the name'),
});
export type ListFlowsQuery = z.output<typeof listFlowsQuery>;

export const deleteFlowQuery = z.object({
  disableDependents: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export const stepParams = z.object({ id: z.string(), stepId: z.string() });

const referrer = z.object({ type: z.string(), id: z.string(), name: z.string() });

export const flowResponse = dataOf(flowRecord);
export const flowList = listOf(flowListItem);
export const deletedFlowResponse = z.object({ data: flowRecord, disabledDependents: z.array(referrer) });
export const stepResponse = dataOf(flowStep);
export const stepList = z.object({ data: z.array(flowStep) });
