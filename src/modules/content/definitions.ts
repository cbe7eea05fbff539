import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { targetFingerprint } from '../../engine/fingerprint.js';
import { randomHex } from '../../platform/crypto.js';
import { int32, jsonObject, nonNegativeInt32, timestamp, uuid } from '../../platform/http/schemas.js';
import { assertFlowUsable } from '../flows/index.js';
import type { PlanFeatureKey } from '../pricing/index.js';
import { versionFields } from '../versions/index.js';
import { CONTENT_STATUSES, CONTENT_TYPES, type ContentType } from './store/records.js';
import { triggerConfigRecord, triggerConfigSchema } from './triggers.js';

/**
 * The six content types, each described once: its request fields (create and PATCH), its
 * record, where its fields are stored (the `body` jsonb or a column), its defaults, and any
 * reference it must check. Routes, services and the OpenAPI document are generated from these.
 */

export const TOOLTIP_POSITIONS = ['AUTO', 'TOP', 'BOTTOM', 'LEFT', 'RIGHT'] as const;
export const BEACON_ANIMATIONS = ['none', 'subtle', 'full'] as const;
export const TASK_ACTION_TYPES = ['NAVIGATE', 'COMPLETE_FLOW', 'FILL_FORM', 'EXTERNAL_LINK'] as const;
export const QUESTION_TYPES = [
  'RATING',
  'TEXT',
  'MULTIPLE_CHOICE',
  'SINGLE_CHOICE',
  'NPS',
  'SCALE',
  'BOOLEAN',
  'DROPDOWN',
] as const;
export const CHOICE_QUESTION_TYPES: readonly string[] = ['MULTIPLE_CHOICE', 'SINGLE_CHOICE', 'DROPDOWN'];
export const ANNOUNCEMENT_TYPES = ['MODAL', 'BANNER', 'SLIDEOUT', 'TOAST'] as const;

export const MAX_TASK_ITEMS = 100;
export const MAX_QUESTIONS = 100;
export const MAX_CHOICES = 100;

/** Present with any value → 400 at that field (DECISIONS §1: `animation` on tooltips and announcements). */
const rejected = (type: string) =>
  z
    .never({ error: `animation is not accepted on ${type}` })
    .optional()
    .describe(`not accepted on ${type}: 400 VALIDATION_ERROR`);

const selector = z.string().trim().min(1).max(1000).describe('CSS selector of the target element');
const targetUrl = z.string().trim().min(1).max(2048).describe('only shown on pages whose url contains this');
const text = (max: number) => z.string().trim().min(1).max(max);

// ---------- task lists ----------

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) url');

/** A missing actionConfig is parsed as `{}`, so the error names the missing field inside it. */
const missing = () => ({}) as never;

const itemBase = { title: text(255), order: nonNegativeInt32().optional() };
const taskItem = z.discriminatedUnion('actionType', [
  z.object({
    ...itemBase,
    actionType: z.literal('NAVIGATE'),
    actionConfig: z.looseObject({ url: text(2048) }).prefault(missing),
  }),
  z.object({
    ...itemBase,
    actionType: z.literal('EXTERNAL_LINK'),
    actionConfig: z.looseObject({ url: httpUrl }).prefault(missing),
  }),
  z.object({
    ...itemBase,
    actionType: z.literal('COMPLETE_FLOW'),
    actionConfig: z
      .looseObject({ flowId: z.string().min(1).describe('a flow of this tenant') })
      .prefault(missing),
  }),
  z.object({ ...itemBase, actionType: z.literal('FILL_FORM'), actionConfig: jsonObject.optional() }),
]);
type TaskItemInput = z.output<typeof taskItem>;

const taskItems = z.array(taskItem).min(1).max(MAX_TASK_ITEMS);

export interface TaskItem {
  title: string;
  actionType: (typeof TASK_ACTION_TYPES)[number];
  actionConfig: Record<string, unknown>;
  order: number;
}

/** Missing `order` is the position in the array; items are kept sorted by order (stable). */
function normalizeTaskItems(items: TaskItemInput[]): TaskItem[] {
  return items
    .map((it, i) => ({
      title: it.title,
      actionType: it.actionType,
      actionConfig: (it.actionConfig ?? {}) as Record<string, unknown>,
      order: it.order ?? i,
    }))
    .sort((a, b) => a.order - b.order);
}

async function checkTaskItemFlows(exec: Executor, tenantId: string, input: Record<string, unknown>) {
  const items = input.items as TaskItemInput[] | undefined;
  if (!items) return;
  for (const [i, item] of items.entries()) {
    if (item.actionType === 'COMPLETE_FLOW') {
      await assertFlowUsable(exec, tenantId, item.actionConfig.flowId, `items.${i}.actionConfig.flowId`);
    }
  }
}

// ---------- surveys ----------

const question = z
  .object({
    key: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .describe('stable key of the answer in responses; generated when absent, unique within the survey'),
    type: z.enum(QUESTION_TYPES),
    question: text(1000),
    required: z.boolean().optional().describe('default false'),
    options: z
      .looseObject({
        choices: z.array(text(255)).min(1).max(MAX_CHOICES).optional(),
        min: int32().optional(),
        max: int32().optional(),
      })
      .optional()
      .describe('choice questions need `choices`; RATING and SCALE may set `min` and `max`'),
    order: nonNegativeInt32().optional(),
  })
  .superRefine((q, ctx) => {
    if (CHOICE_QUESTION_TYPES.includes(q.type)) {
      const choices = q.options?.choices;
      if (!choices) {
        ctx.addIssue({
          code: 'custom',
          path: ['options', 'choices'],
          message: `${q.type} questions need options.choices (a non-empty array of strings)`,
        });
      } else if (new Set(choices).size !== choices.length) {
        ctx.addIssue({ code: 'custom', path: ['options', 'choices'], message: 'choices must be unique' });
      }
    }
    const min = q.options?.min;
    const max = q.options?.max;
    if (min !== undefined && max !== undefined && min >= max) {
      ctx.addIssue({ code: 'custom', path: ['options', 'max'], message: 'max must be greater than min' });
    }
  });
type QuestionInput = z.output<typeof question>;

const questions = z
  .array(question)
  .min(1)
  .max(MAX_QUESTIONS)
  .superRefine((qs, ctx) => {
    const seen = new Set<string>();
    qs.forEach((q, i) => {
      if (q.key === undefined) return;
      if (seen.has(q.key)) {
        ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `duplicate question key ${q.key}` });
      }
      seen.add(q.key);
    });
  });

export interface SurveyQuestion {
  key: string;
  type: (typeof QUESTION_TYPES)[number];
  question: string;
  required: boolean;
  options: Record<string, unknown>;
  order: number;
}

/** Keys are generated for questions without one (never colliding with the others); sorted by order. */
function normalizeQuestions(list: QuestionInput[]): SurveyQuestion[] {
  const taken = new Set(list.flatMap((q) => (q.key ? [q.key] : [])));
  const freshKey = () => {
    let k: string;
    do k = `q_${randomHex(4)}`;
    while (taken.has(k));
    taken.add(k);
    return k;
  };
  return list
    .map((q, i) => ({
      key: q.key ?? freshKey(),
      type: q.type,
      question: q.question,
      required: q.required ?? false,
      options: (q.options ?? {}) as Record<string, unknown>,
      order: q.order ?? i,
    }))
    .sort((a, b) => a.order - b.order);
}

// ---------- records ----------

const commonRecord = {
  id: uuid,
  tenantId: uuid,
  contentType: z.enum(CONTENT_TYPES).describe('the type slug'),
  name: z.string(),
  siteId: uuid,
  status: z.enum(CONTENT_STATUSES),
  audienceId: uuid.nullable(),
  triggerConfig: triggerConfigRecord.nullable(),
  priority: z.number().int().describe('delivery priority: higher first (default 0)'),
  bypassCaps: z.boolean().describe("never held back by the tenant's delivery policy"),
  publishedAt: timestamp.nullable(),
  archivedAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
  ...versionFields,
};

const taskItemRecord = z.object({
  title: z.string(),
  actionType: z.enum(TASK_ACTION_TYPES),
  actionConfig: jsonObject,
  order: z.number().int(),
});
const questionRecord = z.object({
  key: z.string(),
  type: z.enum(QUESTION_TYPES),
  question: z.string(),
  required: z.boolean(),
  options: jsonObject,
  order: z.number().int(),
});

// ---------- the definitions ----------

export const COLUMN_FIELDS = ['targetUrl', 'scheduledAt', 'expiresAt'] as const;
export type ColumnField = (typeof COLUMN_FIELDS)[number];

export interface ContentTypeDef {
  slug: ContentType;
  /** Singular, for messages: "Tooltip not found". */
  label: string;
  /** The type-specific create fields (the common ones are added by `createBody`). */
  fields: z.ZodRawShape;
  /** The type-specific record fields. */
  recordFields: z.ZodRawShape;
  /** Whether `triggerConfig` is part of this type (elsewhere it is an unknown field, stripped). */
  triggers: boolean;
  /** Fields stored in columns rather than in `body`. */
  columns: readonly ColumnField[];
  /** Body values filled in on create when absent. */
  defaults: Record<string, unknown>;
  /** Canonical form of a body field before it is stored. */
  normalize?: Partial<Record<string, (value: never) => unknown>>;
  /** Checks of references to other records (400 at the field's path). */
  checkReferences?: (exec: Executor, tenantId: string, input: Record<string, unknown>) => Promise<void>;
  /** The plan feature creating one needs (403 PLAN_FEATURE_UNAVAILABLE without it). */
  feature?: PlanFeatureKey;
  /**
   * Published on a schedule: created SCHEDULED (scheduledAt ahead) or PUBLISHED rather than
   * DRAFT, and published by the scheduler at scheduledAt. Needs the scheduledAt column.
   */
  scheduled?: boolean;
}

export const CONTENT_DEFS: Record<ContentType, ContentTypeDef> = {
  tooltips: {
    slug: 'tooltips',
    label: 'Tooltip',
    fields: {
      targetSelector: selector,
      targetFingerprint: targetFingerprint.nullable().optional(),
      content: z.looseObject({ text: text(10_000) }),
      position: z.enum(TOOLTIP_POSITIONS).optional().describe('default AUTO'),
      targetUrl: targetUrl.nullable().optional(),
      animation: rejected('tooltips'),
    },
    recordFields: {
      targetSelector: z.string(),
      targetFingerprint: jsonObject.nullable().optional(),
      content: z.looseObject({ text: z.string() }),
      position: z.enum(TOOLTIP_POSITIONS),
      targetUrl: z.string().nullable(),
    },
    triggers: true,
    columns: ['targetUrl'],
    defaults: { position: 'AUTO' },
  },
  beacons: {
    slug: 'beacons',
    label: 'Beacon',
    fields: {
      targetSelector: selector,
      targetFingerprint: targetFingerprint.nullable().optional(),
      content: z.looseObject({ message: text(10_000) }),
      targetUrl: targetUrl.nullable().optional(),
      animation: z.enum(BEACON_ANIMATIONS).optional().describe('default subtle'),
    },
    recordFields: {
      targetSelector: z.string(),
      targetFingerprint: jsonObject.nullable().optional(),
      content: z.looseObject({ message: z.string() }),
      targetUrl: z.string().nullable(),
      animation: z.enum(BEACON_ANIMATIONS),
    },
    triggers: true,
    columns: ['targetUrl'],
    defaults: { animation: 'subtle' },
  },
  'task-lists': {
    slug: 'task-lists',
    label: 'Task list',
    fields: {
      description: z.string().trim().max(5000).nullable().optional(),
      items: taskItems,
    },
    recordFields: {
      description: z.string().nullable(),
      items: z.array(taskItemRecord),
    },
    triggers: false,
    columns: [],
    defaults: { description: null },
    normalize: { items: (v: TaskItemInput[]) => normalizeTaskItems(v) },
    checkReferences: checkTaskItemFlows,
  },
  surveys: {
    slug: 'surveys',
    label: 'Survey',
    fields: { questions },
    recordFields: { questions: z.array(questionRecord) },
    triggers: true,
    columns: [],
    defaults: {},
    normalize: { questions: (v: QuestionInput[]) => normalizeQuestions(v) },
    feature: 'surveys',
  },
  announcements: {
    slug: 'announcements',
    label: 'Announcement',
    fields: {
      type: z.enum(ANNOUNCEMENT_TYPES),
      content: z.looseObject({ title: text(255), body: z.string().max(20_000).optional() }),
      scheduledAt: timestamp
        .nullable()
        .optional()
        .describe('in the future: created SCHEDULED, published then; else created PUBLISHED'),
      expiresAt: timestamp.nullable().optional().describe('archived automatically at this time'),
      animation: rejected('announcements'),
    },
    recordFields: {
      type: z.enum(ANNOUNCEMENT_TYPES),
      content: z.looseObject({ title: z.string(), body: z.string().optional() }),
      scheduledAt: timestamp.nullable(),
      expiresAt: timestamp.nullable(),
    },
    triggers: true,
    columns: ['scheduledAt', 'expiresAt'],
    defaults: {},
    scheduled: true,
  },
  'self-help': {
    slug: 'self-help',
    label: 'Self-help widget',
    fields: {
      config: jsonObject.optional().describe('widget settings, e.g. { position }'),
      items: jsonObject.optional(),
    },
    recordFields: { config: jsonObject, items: jsonObject },
    triggers: false,
    columns: [],
    defaults: { config: {}, items: {} },
  },
};

export const CONTENT_TYPE_LIST: ContentTypeDef[] = CONTENT_TYPES.map((t) => CONTENT_DEFS[t]);

// ---------- request and response schemas per type ----------

const commonCreate = {
  name: text(255),
  siteId: uuid,
  audienceId: z.string().nullable().optional().describe('a live audience of this tenant'),
  priority: z
    .number()
    .int()
    .min(-1_000_000)
    .max(1_000_000)
    .optional()
    .describe(
      'delivery priority: higher first, may be negative (default 0); ties: most recently published first',
    ),
  bypassCaps: z
    .boolean()
    .optional()
    .describe("never held back by the tenant's delivery policy (caps, cooldown): critical announcements"),
};

export const createBodyOf = (def: ContentTypeDef) =>
  z.object({
    ...commonCreate,
    ...(def.triggers ? { triggerConfig: triggerConfigSchema.nullable().optional() } : {}),
    ...def.fields,
  });

/** Any subset of the create fields, validated the same way; null clears an optional field. */
export const patchBodyOf = (def: ContentTypeDef) => createBodyOf(def).partial();

export const recordOf = (def: ContentTypeDef) => z.object({ ...commonRecord, ...def.recordFields });

const RECORD_NAMES: Record<ContentType, string> = {
  tooltips: 'TooltipRecord',
  beacons: 'BeaconRecord',
  'task-lists': 'TaskListRecord',
  surveys: 'SurveyRecord',
  announcements: 'AnnouncementRecord',
  'self-help': 'SelfHelpRecord',
};

/**
 * A content item as the SDK session serves it: the record, its `contentType` a literal (so the
 * session's `content` is a union clients narrow by it), named in the OpenAPI document.
 */
export const deliveredRecordOf = (def: ContentTypeDef) =>
  z
    .object({ ...commonRecord, contentType: z.literal(def.slug), ...def.recordFields })
    .meta({ id: RECORD_NAMES[def.slug] });

export const listItem = z.object({
  id: uuid,
  tenantId: uuid,
  contentType: z.enum(CONTENT_TYPES),
  name: z.string(),
  siteId: uuid,
  status: z.enum(CONTENT_STATUSES),
  audienceId: uuid.nullable(),
  priority: z.number().int(),
  bypassCaps: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
