import type { Schemas } from '../../app/api';
import { humanize } from '../../kit/format';

/**
 * The flow editor's data, as the API shapes it, and the pure steps between the editor's state
 * and a request body: the step order, what a step of each type asks for, a trigger.
 */

export type Flow = Schemas['Flow'];
export type Step = Schemas['FlowStep'];
export type StepType = Step['type'];

export const TEMPLATES = [
  'PRODUCT_TOUR',
  'FEATURE_WALKTHROUGH',
  'INTERACTIVE_DEMO',
  'ANNOUNCEMENT_SEQUENCE',
  'CUSTOM',
] as const;
export type Template = (typeof TEMPLATES)[number];

export const STEP_TYPES: readonly StepType[] = [
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
];

/** Step types that point at an element of the page (a WAIT may: it waits for the element). */
export const TARGETED = new Set<StepType>(['TOOLTIP', 'BEACON', 'CLICK', 'INPUT', 'SCROLL', 'WAIT']);

/** Step types that show an image and a next button. */
export const hasImageAndNext = (type: StepType) =>
  type !== 'WAIT' && type !== 'NAVIGATE' && type !== 'SCROLL';

export const MATCH_TYPES = ['contains', 'equals', 'starts_with', 'ends_with', 'regex', 'glob'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

/** A string field of a step's content (`''` when absent or not a string). */
export const text = (o: Record<string, unknown>, k: string) =>
  typeof o[k] === 'string' ? (o[k] as string) : '';

/** The steps in their saved order. */
export const sortSteps = (steps: readonly Step[]): Step[] => [...steps].sort((a, b) => a.order - b.order);

/** The steps in the order the editor shows (ids of steps since deleted are skipped). */
export function orderedSteps(steps: readonly Step[], order: readonly string[]): Step[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  return order.flatMap((id) => byId.get(id) ?? []);
}

/** What the step is called in the list: its title, else its type. */
export const stepTitle = (s: Step) => text(s.content, 'title') || humanize(s.type);

/** Drops empty strings, so an untouched optional field is absent rather than "". */
export function cleanContent(content: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(content).filter(([, v]) => v !== '' && v !== undefined));
}

/** The body of `PATCH /steps/:id` from the form's state. */
export function stepBody(
  type: StepType,
  targetSelector: string,
  content: Record<string, unknown>,
  settings: Record<string, unknown>,
) {
  return {
    type,
    targetSelector: TARGETED.has(type) ? targetSelector || null : null,
    content: cleanContent(content),
    settings,
  };
}

/** A FORM step's questions as the lines of a textarea, and back (each a required-free text question). */
export const formQuestionsText = (content: Record<string, unknown>): string =>
  Array.isArray(content.fields)
    ? (content.fields as { question?: string }[]).map((q) => q.question ?? '').join('\n')
    : '';
export const formQuestions = (text: string) =>
  text
    .split('\n')
    .filter((q) => q.trim())
    .map((question, order) => ({
      key: `q${order + 1}`,
      type: 'TEXT',
      question,
      required: false,
      options: {},
      order,
    }));

export type TriggerChoice = 'URL_MATCH' | 'MANUAL' | 'NONE';

/** The flow's `trigger` from the targeting form: none (every page), manual, or a URL match. */
export type TriggerBody =
  | null
  | { type: 'MANUAL'; config: Record<string, never> }
  | { type: 'URL_MATCH'; config: { matchType: MatchType; pattern: string } };

export function triggerBody(choice: TriggerChoice, matchType: string, pattern: string): TriggerBody {
  if (choice === 'NONE') return null;
  if (choice === 'MANUAL') return { type: 'MANUAL', config: {} };
  return { type: 'URL_MATCH', config: { matchType: matchType as MatchType, pattern } };
}
