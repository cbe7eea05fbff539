import { z } from 'zod';
import { MATCH_TYPES, MAX_URL_PATTERN_LENGTH, patternProblem } from '../../engine/url-match.js';
import { nonNegativeInt32 } from '../../platform/http/schemas.js';

/** Trigger types of content items and NPS surveys (spec: "Trigger configuration"). */
export const TRIGGER_TYPES = [
  'exit_intent',
  'scroll_depth',
  'time_on_page',
  'side_button',
  'url_match',
  'manual',
] as const;

const url = z.string().trim().min(1).max(2048).optional().describe('only on pages whose url contains this');

/**
 * `{ type, ...fields }`, one shape per type. Unknown fields are stripped; a url_match regex that
 * could backtrack catastrophically (or does not compile) is refused at `triggerConfig.pattern`.
 */
export const triggerConfigSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('exit_intent'), url }),
    z.object({
      type: z.literal('scroll_depth'),
      url,
      percentage: z.number().min(0).max(100).describe('how far down the page, 0 to 100'),
    }),
    z.object({
      type: z.literal('time_on_page'),
      url,
      delay: nonNegativeInt32().describe(
        'milliseconds on the page (at most 2^31 − 1: a browser timer’s limit)',
      ),
    }),
    z.object({
      type: z.literal('side_button'),
      buttonColor: z.string().trim().min(1).max(64).optional(),
      buttonPosition: z.enum(['left', 'right']),
    }),
    z
      .object({
        type: z.literal('url_match'),
        pattern: z.string().min(1).max(MAX_URL_PATTERN_LENGTH),
        matchType: z.enum(MATCH_TYPES).optional().describe('default contains'),
      })
      .superRefine((v, ctx) => {
        const problem = patternProblem(v.matchType, v.pattern);
        if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
      }),
    z.object({ type: z.literal('manual') }),
  ])
  .describe('when the SDK shows the item');

export type TriggerConfigInput = z.output<typeof triggerConfigSchema>;

/**
 * Response side: what was stored (validated by `triggerConfigSchema` on the way in), one shape per
 * type; loose, so that a field added later to a type is still sent as stored.
 */
const storedUrl = z.string().optional();
export const triggerConfigRecord = z
  .discriminatedUnion('type', [
    z.looseObject({ type: z.literal('exit_intent'), url: storedUrl }),
    z.looseObject({ type: z.literal('scroll_depth'), url: storedUrl, percentage: z.number() }),
    z.looseObject({ type: z.literal('time_on_page'), url: storedUrl, delay: z.number() }),
    z.looseObject({
      type: z.literal('side_button'),
      buttonColor: z.string().optional(),
      buttonPosition: z.enum(['left', 'right']),
    }),
    z.looseObject({
      type: z.literal('url_match'),
      pattern: z.string(),
      matchType: z.enum(MATCH_TYPES).optional(),
    }),
    z.looseObject({ type: z.literal('manual') }),
  ])
  .meta({ id: 'TriggerConfig' });
