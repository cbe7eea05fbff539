import { z } from 'zod';
import { RULE_TREE_SCHEMA_ID, ruleTreeSchema } from '../../engine/rule-schema.js';
import type { RuleNode } from '../../engine/rules.js';
import { dataOf, jsonObject, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

/**
 * Responses carry the stored tree as is: it was validated by `ruleTreeSchema` on the way in, and
 * that schema (a preprocess) cannot encode responses. The document still shows its shape, by
 * reference to the named rule tree schema.
 */
const storedRuleTree = z
  .custom<RuleNode>((v) => typeof v === 'object' && v !== null)
  .meta({ $ref: `#/components/schemas/${RULE_TREE_SCHEMA_ID}` });

export const audience = z.object({
  id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  ruleTree: storedRuleTree,
  tenantId: uuid,
  createdAt: timestamp,
  updatedAt: timestamp,
  deletedAt: timestamp.nullable(),
});

const name = z.string().trim().min(1).max(255);
const description = z.string().max(2000).nullable();

export const createAudienceBody = z.object({
  name,
  description: description.optional(),
  ruleTree: ruleTreeSchema,
});

export const updateAudienceBody = z.object({
  name: name.optional(),
  description: description.optional(),
  ruleTree: ruleTreeSchema.optional(),
});

export const listAudiencesQuery = paginationQuery().extend({
  search: z.string().trim().max(255).optional(),
});

const shortText = z.string().max(255);

/** The context an audience is evaluated against (DECISIONS §7 field paths). */
export const evaluationContext = z.object({
  userId: shortText.optional(),
  role: shortText.optional(),
  traits: jsonObject.optional(),
  device: z
    .object({
      type: shortText.optional(),
      browser: shortText.optional(),
    })
    .optional(),
});

export type EvaluationContext = z.infer<typeof evaluationContext>;

/** An absent body (Fastify hands over null) evaluates the empty context. */
export const evaluateAudienceBody = evaluationContext.nullish().transform((v): EvaluationContext => v ?? {});

export const evaluation = z.object({
  matches: z.boolean(),
  audienceId: uuid,
  context: evaluationContext,
  matchedRules: z.number().int(),
  totalRules: z.number().int(),
});

export const audienceResponse = dataOf(audience);
export const audienceList = listOf(audience);
export const evaluationResponse = dataOf(evaluation);

export type CreateAudienceInput = z.infer<typeof createAudienceBody>;
export type UpdateAudienceInput = z.infer<typeof updateAudienceBody>;
