import { z } from 'zod';
import { dataOf, jsonObject, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { experimentAnalysisSchema } from './engine/stats.js';
import { EXPERIMENT_STATUSES, EXPERIMENT_TYPES } from './store.js';

/** Variants an experiment may have (the control and up to nine challengers). */
export const MAX_VARIANTS = 10;
/** 100% in basis points: splits are whole hundredths of a percent (one assignment bucket each). */
export const FULL_SPLIT = 10_000;

/** A percentage as whole basis points (33.33 → 3333). */
export const basisPointsOf = (percent: number) => Math.round(percent * 100);

const splitPercentage = z
  .number()
  .min(0)
  .max(100)
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, {
    message: 'must have at most two decimals (0.01% is one assignment bucket)',
  })
  .describe('Percent of the experiment audience (0–100, at most two decimals); all variants sum to 100');

export const variantBody = z.object({
  id: uuid
    .optional()
    .describe('PATCH: the id of a variant to keep (its id stays); absent or unknown: a new variant'),
  name: z.string().trim().min(1).max(100),
  splitPercentage,
  flowId: uuid
    .nullable()
    .optional()
    .describe(
      "A flow of the tenant served to this variant; null: a holdout (none of the experiment's flows)",
    ),
  config: jsonObject.optional().describe('Free-form settings of the variant, kept as sent'),
});
export type VariantInput = z.output<typeof variantBody>;

/** Names unique (case-insensitive) and splits summing to exactly 100, when any variant is given. */
const variantList = z
  .array(variantBody)
  .max(MAX_VARIANTS)
  .superRefine((variants, ctx) => {
    const seen = new Map<string, number>();
    variants.forEach((v, i) => {
      const key = v.name.toLowerCase();
      if (seen.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'name'],
          message: `repeats the name of variant ${seen.get(key)}`,
        });
      } else seen.set(key, i);
    });
    const ids = new Set<string>();
    variants.forEach((v, i) => {
      if (!v.id) return;
      if (ids.has(v.id.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: 'names the same variant twice' });
      ids.add(v.id.toLowerCase());
    });
    if (variants.length === 0) return;
    const total = variants.reduce((s, v) => s + basisPointsOf(v.splitPercentage), 0);
    if (total !== FULL_SPLIT) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `splitPercentage values must sum to 100 (they sum to ${total / 100})`,
      });
    }
  })
  .describe('In order: the first variant is the control. Split percentages sum to 100.');

const fields = {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(5000).nullable(),
  type: z.enum(EXPERIMENT_TYPES),
  audienceId: uuid.nullable().describe('Only end users in this audience are assigned; null: everyone'),
  endDate: timestamp
    .nullable()
    .describe('When the experiment completes (a background job, within a minute); null: runs until stopped'),
};

export const createExperimentBody = z.object({
  name: fields.name,
  description: fields.description.optional(),
  type: fields.type.default('ab_test'),
  audienceId: fields.audienceId.optional(),
  endDate: fields.endDate.optional(),
  variants: variantList.default([]),
});
export type CreateExperimentInput = z.output<typeof createExperimentBody>;

export const updateExperimentBody = z.object({
  name: fields.name.optional(),
  description: fields.description.optional(),
  type: fields.type.optional(),
  audienceId: fields.audienceId.optional(),
  endDate: fields.endDate.optional(),
  variants: variantList.optional().describe('Replaces the variant list (ids kept where sent)'),
});
export type UpdateExperimentInput = z.output<typeof updateExperimentBody>;

export const listExperimentsQuery = paginationQuery().extend({
  status: z.enum(EXPERIMENT_STATUSES).optional().describe('Default: every status but archived'),
  search: z.string().max(255).optional().describe('Case-insensitive substring of the name'),
});
export type ListExperimentsQuery = z.output<typeof listExperimentsQuery>;

export const variantRecord = z.object({
  id: uuid,
  name: z.string(),
  splitPercentage: z.number(),
  flowId: uuid.nullable(),
  config: jsonObject,
});

const experimentBase = {
  id: uuid,
  tenantId: uuid,
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(EXPERIMENT_TYPES),
  status: z.enum(EXPERIMENT_STATUSES),
  audienceId: uuid.nullable(),
  startDate: timestamp.nullable().describe('When it first started'),
  endDate: timestamp.nullable(),
  archivedAt: timestamp.nullable(),
  variants: z.array(variantRecord),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const experimentRecord = z.object(experimentBase).meta({ id: 'Experiment' });
export const experimentListItem = z.object({
  ...experimentBase,
  _count: z.object({ assignments: z.number().int().describe('end users assigned so far') }),
});

export const experimentResponse = dataOf(experimentRecord);
export const experimentList = listOf(experimentListItem);

const dailyPoint = z.object({
  date: z.iso.date().describe('UTC day'),
  participants: z.number().int().describe('assigned by the end of this day (cumulative)'),
  conversions: z.number().int().describe('converted by the end of this day (cumulative)'),
});

export const resultsResponse = dataOf(
  z.object({
    experimentId: uuid,
    name: z.string(),
    status: z.enum(EXPERIMENT_STATUSES),
    startDate: timestamp.nullable(),
    endDate: timestamp.nullable(),
    variants: z.array(
      z.object({
        variantId: uuid,
        variantName: z.string(),
        splitPercentage: z.number(),
        participants: z.number().int(),
        conversions: z.number().int(),
        conversionRate: z.number().min(0).max(1).describe('a fraction, 0 without participants'),
        results: z
          .array(dailyPoint)
          .describe('daily cumulative series, from the first day to today (or the end)'),
      }),
    ),
  }),
);

export const computeResultsResponse = dataOf(
  z.object({
    experimentId: uuid,
    status: z.enum(EXPERIMENT_STATUSES),
    computedAt: timestamp,
    variants: experimentAnalysisSchema.shape.variants,
    srm: experimentAnalysisSchema.shape.srm,
  }),
);
