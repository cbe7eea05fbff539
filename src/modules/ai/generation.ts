import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, type ValidationIssue, validationError } from '../../platform/errors.js';
import { CONTENT_DEFS, type ContentTypeDef, createBodyOf, createContent } from '../content/index.js';
import { createFlow, createFlowBody } from '../flows/index.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import { type AiDeps, withAi } from './access.js';
import {
  announcementDraft,
  beaconDraft,
  CONTENT_EXAMPLES,
  flowDraft,
  SURVEY_RULES,
  surveyDraft,
  taskListDraft,
  tooltipDraft,
} from './content-drafts.js';
import { journeyGenerator } from './generate-journey.js';
import type { GenerationDef } from './generation-def.js';
import { descriptionPrompt, GENERATION_SYSTEM } from './prompts.js';
import { forwardIssues, type OutputDef, outputDef, promptLines } from './wire.js';

/**
 * Content generation as one table: per type, the schema of `aiData` (the create body of the
 * matching endpoint, without `siteId`, which comes with the request), what the model writes
 * (`content-drafts.ts`: exact in JSON Schema, a subset of that body), how to preview it, and how
 * to commit it. `generate-content` validates the model's answer with the draft, then with the
 * create schema (one repair attempt, then 500) and persists nothing;
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
  spec: Pick<GenerationDef, 'what' | 'hints' | 'preview' | 'draft' | 'example' | 'rules'> & {
    children?: (record: Record<string, unknown>) => Record<string, (string | number)[]>;
  },
): GenerationDef {
  return {
    what: spec.what,
    createSchema: createBodyOf(def),
    draft: spec.draft,
    example: spec.example,
    ...(spec.rules ? { rules: spec.rules } : {}),
    hints: spec.hints,
    preview: spec.preview,
    async commit(ctx, body) {
      const record = (await createContent(ctx, def, body)) as Record<string, unknown> & { id: string };
      return { parentId: record.id, ...(spec.children ? { createdSubItemIds: spec.children(record) } : {}) };
    },
  };
}

/** A drafted flow is a tour: committed with at least one step (POST /api/flows also takes none). */
const draftedFlowBody = createFlowBody.extend({
  steps: createFlowBody.shape.steps.unwrap().min(1, 'a drafted flow has at least one step'),
});

const GENERATORS: Record<GenerationType, GenerationDef> = {
  flow: {
    what: 'a product tour (a flow of steps)',
    createSchema: draftedFlowBody,
    draft: flowDraft,
    example: CONTENT_EXAMPLES.flow,
    hints: [
      'Use 3 to 7 steps. Use MODAL for a welcome or closing step and TOOLTIP or BEACON for steps pointing at an element.',
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
    draft: tooltipDraft,
    example: CONTENT_EXAMPLES.tooltip,
    hints: ['Keep content.text under 200 characters.'],
    preview: (data) => ({ title: String(data.name), summary: text(contentOf(data).text), items: [] }),
  }),
  beacon: contentType(CONTENT_DEFS.beacons, {
    what: 'a beacon (a pulsing hotspot with a message)',
    draft: beaconDraft,
    example: CONTENT_EXAMPLES.beacon,
    hints: ['Keep content.message under 200 characters.'],
    preview: (data) => ({ title: String(data.name), summary: text(contentOf(data).message), items: [] }),
  }),
  survey: contentType(CONTENT_DEFS.surveys, {
    what: 'an in-app survey',
    draft: surveyDraft,
    example: CONTENT_EXAMPLES.survey,
    rules: Object.values(SURVEY_RULES),
    hints: ['Use 1 to 6 questions.'],
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
    draft: announcementDraft,
    example: CONTENT_EXAMPLES.announcement,
    hints: ['The body may use simple markdown.'],
    preview: (data) => ({
      title: text(contentOf(data).title) ?? String(data.name),
      summary: text(contentOf(data).body),
      items: [],
    }),
  }),
  'task-list': contentType(CONTENT_DEFS['task-lists'], {
    what: 'an onboarding checklist (a task list)',
    draft: taskListDraft,
    example: CONTENT_EXAMPLES['task-list'],
    hints: [
      'Use 3 to 7 items. NAVIGATE goes to a path in the product ("/settings"), EXTERNAL_LINK to an absolute https url.',
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

/**
 * What the model answers for a type whose draft is its create body (every type but journey):
 * the draft, then the create schema with the request's siteId, whose output is `aiData`.
 */
export function contentOutput(type: Exclude<GenerationType, 'journey'>, siteId: string): OutputDef {
  const def = generatorOf(type);
  return outputDef({
    name: type.replace('-', '_'),
    draft: def.draft,
    rules: def.rules ?? [],
    example: def.example as Record<string, unknown>,
    hints: def.hints,
    finish(draft, ctx) {
      const parsed = def.createSchema.safeParse({ ...draft, siteId });
      if (!parsed.success) {
        forwardIssues(ctx, parsed.error.issues);
        return z.NEVER;
      }
      const { siteId: _, ...aiData } = parsed.data as Record<string, unknown>;
      return aiData;
    },
  });
}

export interface GenerateInput {
  type: GenerationType;
  siteId: string;
  description: string;
}

export async function generateContent(ctx: ServiceCtx, deps: AiDeps, input: GenerateInput) {
  const def = generatorOf(input.type);
  return withAi(ctx, deps, async (client) => {
    const output = def.modelOutput
      ? await def.modelOutput(ctx, input.siteId)
      : contentOutput(input.type as Exclude<GenerationType, 'journey'>, input.siteId);
    const aiData = await client.generateObject({
      system: GENERATION_SYSTEM,
      messages: [
        { role: 'user', content: descriptionPrompt(def.what, input.description, promptLines(output)) },
      ],
      schema: output.validated,
      modelSchema: output.modelSchema,
      name: output.name,
      rules: output.rules,
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
