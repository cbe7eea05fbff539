import { z } from 'zod';
import { ANNOUNCEMENT_TYPES, BEACON_ANIMATIONS, TOOLTIP_POSITIONS } from '../content/index.js';
import { FLOW_TEMPLATES } from '../flows/index.js';
import { breakRule, type CrossFieldRule, HTTP_URL_PATTERN, RELATIVE_PATH_PATTERN, wireText } from './wire.js';

/**
 * What a model writes for each content type (and for suggested flow steps), exact in JSON Schema
 * (`wire.ts`). Each is a strict subset of its create endpoint's body: the fields a model chooses
 * (no site, audience, trigger, schedule or refused field), the ones a user needs made required
 * (step content, an announcement's body, two choices per choice question), the step and item
 * types that need no reference to another record, and the shapes the create schema accepts for
 * each type spelled out as `anyOf` alternatives. The create schema still runs afterwards
 * (`generation.ts`); the property test shows it never refuses what these accept.
 */

export const MAX_DRAFT_STEPS = 20;
const MAX_DRAFT_ITEMS = 20;
const MAX_DRAFT_QUESTIONS = 20;
const MAX_DRAFT_CHOICES = 20;

const name = wireText(255).describe('what the team calls it in the dashboard');
const selector = wireText(1000).describe(
  'CSS selector of the element it points at (an id, a data attribute or a class)',
);

// ---- flow steps --------------------------------------------------------------------------------

const stepContent = z.object({ title: wireText(200), body: wireText(2000) });

/** A flow step: a MODAL, BANNER or SLIDEOUT on its own, or a TOOLTIP or BEACON pointing at an element. */
export const stepDraft = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['MODAL', 'BANNER', 'SLIDEOUT']), content: stepContent }),
  z.object({ type: z.enum(['TOOLTIP', 'BEACON']), targetSelector: selector, content: stepContent }),
]);
export const stepsDraft = z.array(stepDraft).min(1).max(MAX_DRAFT_STEPS);

export const STEPS_EXAMPLE = [
  { type: 'MODAL', content: { title: 'Welcome', body: 'A quick look around.' } },
  {
    type: 'TOOLTIP',
    targetSelector: '#new-project',
    content: { title: 'Start here', body: 'Create your first project.' },
  },
];

// ---- per type ----------------------------------------------------------------------------------

export const flowDraft = z.object({
  name,
  description: z.string().max(5000).optional(),
  template: z.enum(FLOW_TEMPLATES),
  steps: stepsDraft,
});

export const tooltipDraft = z.object({
  name,
  targetSelector: selector,
  content: z.object({ text: wireText(10_000) }),
  position: z.enum(TOOLTIP_POSITIONS).optional().describe('default AUTO'),
});

export const beaconDraft = z.object({
  name,
  targetSelector: selector,
  content: z.object({ message: wireText(10_000) }),
  animation: z.enum(BEACON_ANIMATIONS).optional().describe('default subtle'),
});

export const announcementDraft = z.object({
  name,
  type: z.enum(ANNOUNCEMENT_TYPES),
  content: z.object({ title: wireText(255), body: wireText(20_000).describe('simple markdown') }),
});

export const SURVEY_RULES = {
  distinctChoices: {
    id: 'survey-distinct-choices',
    text: 'The choices of a question must differ from each other (ignoring spaces around them).',
  },
  scaleBounds: {
    id: 'survey-scale-bounds',
    text: 'A RATING or SCALE question that sets options.min and options.max needs min below max.',
  },
} satisfies Record<string, CrossFieldRule>;

const question = wireText(1000);
const required = z.boolean().optional().describe('default false');
const questionDraft = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['TEXT', 'NPS', 'BOOLEAN']), question, required }),
  z
    .object({
      type: z.enum(['RATING', 'SCALE']),
      question,
      required,
      options: z
        .object({ min: z.int().min(0).max(100).optional(), max: z.int().min(0).max(100).optional() })
        .optional(),
    })
    .superRefine((q, ctx) => {
      const { min, max } = q.options ?? {};
      if (min !== undefined && max !== undefined && min >= max)
        breakRule(ctx, SURVEY_RULES.scaleBounds, ['options', 'max']);
    }),
  z
    .object({
      type: z.enum(['SINGLE_CHOICE', 'MULTIPLE_CHOICE', 'DROPDOWN']),
      question,
      required,
      options: z.object({
        choices: z.array(wireText(255)).min(2).max(MAX_DRAFT_CHOICES).meta({ uniqueItems: true }),
      }),
    })
    .superRefine((q, ctx) => {
      const trimmed = q.options.choices.map((c) => c.trim());
      if (new Set(trimmed).size !== trimmed.length)
        breakRule(ctx, SURVEY_RULES.distinctChoices, ['options', 'choices']);
    }),
]);

export const surveyDraft = z.object({
  name,
  questions: z.array(questionDraft).min(1).max(MAX_DRAFT_QUESTIONS),
});

const itemTitle = wireText(255);
export const taskListDraft = z.object({
  name,
  description: z.string().max(5000).optional(),
  items: z
    .array(
      z.discriminatedUnion('actionType', [
        z.object({
          title: itemTitle,
          actionType: z.literal('NAVIGATE'),
          actionConfig: z.object({
            url: z
              .string()
              .max(2048)
              .regex(RELATIVE_PATH_PATTERN, 'must be a path in the product, such as /settings'),
          }),
        }),
        z.object({
          title: itemTitle,
          actionType: z.literal('EXTERNAL_LINK'),
          actionConfig: z.object({
            url: z.string().max(2048).regex(HTTP_URL_PATTERN, 'must be an absolute http(s) url'),
          }),
        }),
      ]),
    )
    .min(1)
    .max(MAX_DRAFT_ITEMS),
});

export const CONTENT_EXAMPLES = {
  flow: { name: 'Welcome tour', template: 'PRODUCT_TOUR', steps: STEPS_EXAMPLE },
  tooltip: { name: 'Export tip', targetSelector: '#export', content: { text: 'Download as CSV.' } },
  beacon: {
    name: 'New reports',
    targetSelector: '[data-nav=reports]',
    content: { message: 'Reports are new.' },
  },
  survey: {
    name: 'Setup feedback',
    questions: [
      { type: 'RATING', question: 'How easy was the setup?', options: { min: 1, max: 5 } },
      {
        type: 'SINGLE_CHOICE',
        question: 'What is your role?',
        options: { choices: ['Product', 'Engineering'] },
      },
    ],
  },
  announcement: {
    name: 'Dark mode',
    type: 'BANNER',
    content: { title: 'Dark mode is here', body: 'Turn it on in Preferences.' },
  },
  'task-list': {
    name: 'Get started',
    items: [
      { title: 'Create a project', actionType: 'NAVIGATE', actionConfig: { url: '/projects/new' } },
      {
        title: 'Read the guide',
        actionType: 'EXTERNAL_LINK',
        actionConfig: { url: 'https://example.com/guide' },
      },
    ],
  },
} as const;
