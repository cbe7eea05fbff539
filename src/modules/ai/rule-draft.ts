import { z } from 'zod';
import { FORBIDDEN_SEGMENTS } from '../../engine/rules.js';
import { regexPatternProblem } from '../../engine/url-match.js';
import { breakRule, type CrossFieldRule } from './wire.js';

/**
 * An audience rule as a model writes it (suggest-audience, a journey's CONDITION and
 * attribute goal): the audience rule tree, with what its validator needs said in the schema. A
 * node is a leaf or a group, the leaf first (`anyOf`); each leaf's operator decides its value (a
 * list for in/not_in, none for exists/not_exists, a number or an ISO date for comparisons), and a
 * group has an operator and at least one rule. Groups nest two deep (three levels, at most 111
 * nodes: within the audience limits of 10 levels and 200 nodes), written out rather than
 * recursive: no provider has to follow a recursive `$ref` (the leaf is one `$defs` entry that
 * each level refers to, `modelSchemaOf`). Fields are those an audience is
 * evaluated against (DECISIONS §7): userId, role, device.type, device.browser, traits.<name>.
 */

export const RULE_RULES = {
  safeRegex: {
    id: 'rule-regex',
    text: 'A regex rule value must be an RE2 regular expression (no lookarounds or backreferences) that cannot backtrack catastrophically: no nested quantifiers such as (a+)+.',
  },
  fieldNames: {
    id: 'rule-field-names',
    text: 'A rule field may not have a segment named __proto__, prototype or constructor.',
  },
} satisfies Record<string, CrossFieldRule>;

const FIELD_PATTERN =
  /^(?:userId|role|device\.(?:type|browser)|traits\.[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*)$/;
const MAX_GROUP_RULES = 10;
const MAX_LIST = 50;

const field = z
  .string()
  .max(200)
  .regex(FIELD_PATTERN, 'field must be userId, role, device.type, device.browser or traits.<name>')
  .superRefine((f, ctx) => {
    if (f.split('.').some((s) => FORBIDDEN_SEGMENTS.has(s))) breakRule(ctx, RULE_RULES.fieldNames, []);
  })
  .describe('userId, role, device.type (desktop, mobile, tablet), device.browser or traits.<name>');

const text = z.string().max(500);
const primitive = z.union([text, z.number(), z.boolean()]);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

const leaf = z.discriminatedUnion('operator', [
  z.object({ field, operator: z.enum(['eq', 'neq']), value: primitive }),
  z.object({
    field,
    operator: z.enum(['contains', 'not_contains', 'starts_with', 'ends_with']),
    value: text,
  }),
  z.object({
    field,
    operator: z.enum(['gt', 'lt', 'gte', 'lte']),
    value: z
      .union([z.number(), z.string().regex(ISO_DATE, 'must be an ISO date')])
      .describe('a number or an ISO date'),
  }),
  z.object({ field, operator: z.enum(['in', 'not_in']), value: z.array(primitive).min(1).max(MAX_LIST) }),
  z.object({ field, operator: z.enum(['exists', 'not_exists']) }),
  z.object({
    field,
    operator: z.literal('regex'),
    value: z
      .string()
      .max(200)
      .superRefine((pattern, ctx) => {
        const problem = regexPatternProblem(pattern);
        if (problem) breakRule(ctx, RULE_RULES.safeRegex, [], problem);
      }),
  }),
]);

const group = (node: z.ZodType) =>
  z.object({
    logicalOperator: z.enum(['AND', 'OR', 'NOT']).describe('NOT: none of the rules holds'),
    rules: z.array(node).min(1).max(MAX_GROUP_RULES),
  });

/** A rule tree as the model writes it: a leaf, or a group of leaves and groups of leaves. */
export const ruleDraft = z.union([leaf, group(z.union([leaf, group(leaf)]))]);

export const RULE_DRAFT_RULES: readonly CrossFieldRule[] = Object.values(RULE_RULES);

/** A rule tree in the syntax above, for prompts. */
export const RULE_EXAMPLE = {
  logicalOperator: 'AND',
  rules: [
    { field: 'traits.plan', operator: 'in', value: ['pro', 'business'] },
    { field: 'device.type', operator: 'eq', value: 'mobile' },
  ],
};
