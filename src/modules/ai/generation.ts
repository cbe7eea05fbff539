import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, type ValidationIssue, validationError } from '../../platform/errors.js';
import { CONTENT_DEFS, type ContentTypeDef, createBodyOf, createContent } from '../content/index.js';
import { createFlow, createFlowBody } from '../flows/index.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import { type AiDeps, withAi } from './access.js';
import { journeyGenerator } from './generate-journey.js';
import type { GenerationDef, ModelOutput } from './generation-def.js';
import { modelSchemaOf } from './model-schema.js';
import { descriptionPrompt, GENERATION_SYSTEM } from './prompts.js';

/**
 * Content generation as one table: per type, the schema of `aiData` (the create body of the
 * matching endpoint, without `siteId`, which comes with the request), what the model may fill
 * in, how to preview it, and how to commit it. `generate-content` validates the model's answer
 * with that create schema (one repair attempt, then 500) and persists nothing;
 * `commit-content` validates `aiData` with it again (400 naming the field under `aiData.`) and
 * creates the parent and its children through the create service, in one transaction, with an
 * AI_CONTENT_COMMITTED audit entry beside the create's own.
 */

export const GENERATION_TYPES = [
  'flow',
  'tooltip',
  'beacon',
  'survey',
  'announcement',
  'journey',
  'task-list',
] as const;
export type GenerationType = (typeof GENERATION_TYPES)[number];

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const contentOf = (data: Record<string, unknown>) => (data.content ?? {}) as Record<string, unknown>;

/** A content type generated and committed through the content module's definitions. */
function contentType(
  def: ContentTypeDef,
  spec: Pick<GenerationDef, 'what' | 'hints' | 'preview'> & {
    modelOmits?: readonly string[];
    children?: (record: Record<string, unknown>) => Record<string, (string | number)[]>;
  },
): GenerationDef {
  return {
    what: spec.what,
    createSchema: createBodyOf(def),
    modelOmits: ['audienceId', 'triggerConfig', 'targetUrl', ...(spec.modelOmits ?? [])],
    hints: spec.hints,
    preview: spec.preview,
    async commit(ctx, body) {
      const record = (await createContent(ctx, def, body)) as Record<string, unknown> & { id: string };
      return { parentId: record.id, ...(spec.children ? { createdSubItemIds: spec.children(record) } : {}) };
    },
  };
}

const GENERATORS: Record<GenerationType, GenerationDef> = {
  flow: {
    what: 'a product tour (a flow of steps)',
    createSchema: createFlowBody,
    modelOmits: ['audienceId', 'scheduledAt', 'expiresAt', 'trigger', 'settings'],
    hints: [
      'Use 3 to 7 steps. Use MODAL for a welcome or closing step and TOOLTIP or BEACON for steps pointing at an element (give them a targetSelector).',
      'Give every step content {"title": string, "body": string}.',
    ],
    preview: (data) => ({
      title: String(data.name),
      summary: text(data.description),
      items: ((data.steps ?? []) as { type: string; content?: { title?: unknown } }[]).map(
        (s, i) => `${i + 1}. ${s.type}${text(s.content?.title) ? `: ${s.content!.title}` : ''}`,
      ),
    }),
    async commit(ctx, body) {
      const flow = await createFlow(ctx, body as Parameters<typeof createFlow>[1]);
      return { parentId: flow.id, createdSubItemIds: { steps: flow.steps.map((s) => s.id) } };
    },
  },
  tooltip: contentType(CONTENT_DEFS.tooltips, {
    what: 'a tooltip',
    modelOmits: ['animation'],
    hints: ['Keep content.text under 200 characters.'],
    preview: (data) => ({ title: String(data.name), summary: text(contentOf(data).text), items: [] }),
  }),
  beacon: contentType(CONTENT_DEFS.beacons, {
    what: 'a beacon (a pulsing hotspot with a message)',
    hints: ['Keep content.message under 200 characters.'],
    preview: (data) => ({ title: String(data.name), summary: text(contentOf(data).message), items: [] }),
  }),
  survey: contentType(CONTENT_DEFS.surveys, {
    what: 'an in-app survey',
    hints: [
      'Use 1 to 6 questions. Choice questions (SINGLE_CHOICE, MULTIPLE_CHOICE, DROPDOWN) need options {"choices": [...]} with unique choices.',
    ],
    preview: (data) => ({
      title: String(data.name),
      summary: null,
      items: ((data.questions ?? []) as { type: string; question: string }[]).map(
        (q) => `${q.type}: ${q.question}`,
      ),
    }),
    children: (record) => ({ questions: (record.questions as { key: string }[]).map((q) => q.key) }),
  }),
  announcement: contentType(CONTENT_DEFS.announcements, {
    what: 'an in-app announcement',
    modelOmits: ['scheduledAt', 'expiresAt', 'animation'],
    hints: ['Give content {"title": string, "body": string}; the body may use simple markdown.'],
    preview: (data) => ({
      title: text(contentOf(data).title) ?? String(data.name),
      summary: text(contentOf(data).body),
      items: [],
    }),
  }),
  'task-list': contentType(CONTENT_DEFS['task-lists'], {
    what: 'an onboarding checklist (a task list)',
    hints: [
      'Use 3 to 7 items. Use NAVIGATE with actionConfig {"url": "/a/relative/path"} or EXTERNAL_LINK with an absolute https url; do not use COMPLETE_FLOW (it needs the id of an existing flow).',
    ],
    preview: (data) => ({
      title: String(data.name),
      summary: text(data.description),
      items: ((data.items ?? []) as { title: string }[]).map((item, i) => `${i + 1}. ${item.title}`),
    }),
    children: (record) => ({ items: (record.items as unknown[]).map((_, i) => i) }),
  }),
  journey: journeyGenerator,
};

const generatorOf = (type: GenerationType): GenerationDef => GENERATORS[type];

/** `schema` without the keys it does not have among `keys`. */
function omitKeys(schema: z.ZodObject, keys: readonly string[]): z.ZodObject {
  const present = keys.filter((k) => k in schema.shape);
  return present.length ? schema.omit(Object.fromEntries(present.map((k) => [k, true])) as never) : schema;
}

/** What the model answers, validated by the create schema (siteId added back before it runs). */
function modelOutputSchema(def: GenerationDef, siteId: string): ModelOutput {
  const fields = omitKeys(omitKeys(def.createSchema, ['siteId']), def.modelOmits);
  const validated = fields.transform((data, ctx) => {
    const parsed = def.createSchema.safeParse({ ...data, siteId });
    if (parsed.success) {
      const { siteId: _, ...aiData } = parsed.data as Record<string, unknown>;
      return aiData;
    }
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });
  return { validated, modelSchema: modelSchemaOf(fields), hints: [...def.hints] };
}

export interface GenerateInput {
  type: GenerationType;
  siteId: string;
  description: string;
}

export async function generateContent(ctx: ServiceCtx, deps: AiDeps, input: GenerateInput) {
  const def = generatorOf(input.type);
  return withAi(ctx, deps, async (client) => {
    const { validated, modelSchema, hints } = def.modelOutput
      ? await def.modelOutput(ctx, input.siteId)
      : modelOutputSchema(def, input.siteId);
    const aiData = await client.generateObject({
      system: GENERATION_SYSTEM,
      messages: [{ role: 'user', content: descriptionPrompt(def.what, input.description, hints) }],
      schema: validated,
      modelSchema,
      name: input.type.replace('-', '_'),
    });
    return { aiData, preview: def.preview(aiData), tokensUsed: client.tokensUsed };
  });
}

/** The create schema's issues, with paths under `aiData.` (siteId is the request's own field). */
const underAiData = (issues: ValidationIssue[]): ValidationIssue[] =>
  issues.map((i) => ({ ...i, path: i.path === 'siteId' ? 'siteId' : `aiData${i.path ? `.${i.path}` : ''}` }));

export interface CommitInput {
  type: GenerationType;
  siteId: string;
  aiData: Record<string, unknown>;
}

export async function commitContent(ctx: ServiceCtx, input: CommitInput) {
  const def = generatorOf(input.type);
  await assertFeatureEnabled(ctx.db, ctx.tenantId, 'ai', ctx.now);
  const parsed = def.createSchema.safeParse({ ...input.aiData, siteId: input.siteId });
  if (!parsed.success) {
    throw validationError(
      underAiData(parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))),
    );
  }
  try {
    const committed = await ctx.db.transaction(async (tx) => {
      const txCtx: ServiceCtx = { ...ctx, db: tx as unknown as Database };
      const result = await def.commit(txCtx, parsed.data as Record<string, unknown>);
      await audit(txCtx, tx, {
        action: 'AI_CONTENT_COMMITTED',
        entityType: input.type,
        entityId: result.parentId,
        metadata: {
          type: input.type,
          ...(result.createdSubItemIds ? { children: result.createdSubItemIds } : {}),
        },
      });
      return result;
    });
    return { parentType: input.type, ...committed };
  } catch (err) {
    // The create service's own checks (references, schedules) name fields of aiData too.
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR' && Array.isArray(err.details)) {
      throw validationError(underAiData(err.details as ValidationIssue[]));
    }
    throw err;
  }
}
