import { z } from 'zod';
import {
  dataOf,
  isoDate,
  isoDateTime,
  jsonObject,
  listOf,
  timestamp,
  uuid,
} from '../../platform/http/schemas.js';
import { paginationQuery, sortDirection } from '../../platform/pagination.js';
import { CONTENT_STATUSES } from './store/records.js';
import { triggerConfigRecord, triggerConfigSchema } from './triggers.js';

/** Filters of the content and NPS survey lists; archived records only with `status=ARCHIVED`. */
export const contentListQuery = paginationQuery().extend({
  status: z.enum(CONTENT_STATUSES).optional(),
  search: z.string().max(255).optional().describe('case-insensitive substring of the name'),
  siteId: uuid.optional(),
  sortBy: z.enum(['name', 'status', 'createdAt', 'updatedAt']).default('createdAt'),
  sortDirection: sortDirection.default('desc'),
});

export const surveyResponse = z.object({
  id: uuid,
  surveyId: uuid,
  endUserId: uuid.nullable(),
  response: jsonObject.describe('answers keyed by question key'),
  submittedAt: timestamp,
  tenantId: uuid,
});
export const surveyResponseList = listOf(surveyResponse);

// ---------- NPS surveys ----------

const npsFields = {
  name: z.string().trim().min(1).max(255),
  siteId: uuid,
  question: z.string().trim().min(1).max(1000).describe('e.g. "How likely are you to recommend us?"'),
  followUpQuestion: z.string().trim().min(1).max(1000).nullable().optional(),
  audienceId: z.string().nullable().optional().describe('a live audience of this tenant'),
  triggerConfig: triggerConfigSchema.nullable().optional(),
};
export const createNpsSurveyBody = z.object(npsFields);
export const patchNpsSurveyBody = createNpsSurveyBody.partial();

export const npsSurvey = z.object({
  id: uuid,
  tenantId: uuid,
  name: z.string(),
  siteId: uuid,
  status: z.enum(CONTENT_STATUSES),
  audienceId: uuid.nullable(),
  triggerConfig: triggerConfigRecord.nullable(),
  question: z.string(),
  followUpQuestion: z.string().nullable(),
  publishedAt: timestamp.nullable(),
  archivedAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const npsSurveyResponse = dataOf(npsSurvey);
export const npsSurveyList = listOf(
  npsSurvey.pick({
    id: true,
    tenantId: true,
    name: true,
    siteId: true,
    status: true,
    audienceId: true,
    createdAt: true,
    updatedAt: true,
  }),
);

/** An NPS score: an integer from 0 to 10 (a response's `score`, and an NPS_RESPONSE event's `properties.score`). */
export const npsScore = z.int().min(0).max(10);

export const npsResponse = z.object({
  id: uuid,
  npsSurveyId: uuid,
  endUserId: uuid.nullable(),
  score: npsScore,
  comment: z.string().nullable(),
  submittedAt: timestamp,
  tenantId: uuid,
});
export const npsResponseList = listOf(npsResponse);

/**
 * A bound of the results' date range: an ISO 8601 date-time, or a date (`2024-05-01`) meaning
 * the start of that day (UTC) as `startDate` and its end as `endDate`.
 */
const dateBound = (edge: 'start' | 'end') =>
  z.union([isoDateTime(), isoDate()]).transform((s) => {
    if (s.length > 10) return new Date(s);
    const d = new Date(`${s}T00:00:00.000Z`);
    return edge === 'start' ? d : new Date(d.getTime() + 86_400_000 - 1);
  });

export const npsResultsQuery = z
  .object({ startDate: dateBound('start').optional(), endDate: dateBound('end').optional() })
  .superRefine((q, ctx) => {
    if (q.startDate && q.endDate && q.endDate < q.startDate) {
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'endDate must not be before startDate' });
    }
  });

export const npsResults = dataOf(
  z.object({
    npsSurveyId: uuid,
    totalResponses: z.number().int(),
    promoters: z.number().int().describe('scores 9-10'),
    passives: z.number().int().describe('scores 7-8'),
    detractors: z.number().int().describe('scores 0-6'),
    promoterPercentage: z.number(),
    passivePercentage: z.number(),
    detractorPercentage: z.number(),
    npsScore: z.number().describe('% promoters − % detractors, one decimal; 0 without responses'),
    dateRange: z.object({ startDate: timestamp.nullable(), endDate: timestamp.nullable() }),
  }),
);
