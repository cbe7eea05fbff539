import { z } from 'zod';
import { dataOf, isoDate, isoDateTime, uuid } from '../../platform/http/schemas.js';

/**
 * A bound of a date range: an ISO 8601 date (`2026-05-01`) or date-time with offset; analytics
 * counts whole UTC days, so a date-time selects the UTC day it falls on. Kept as sent: the
 * response's `dateRange` echoes it.
 */
const dateBound = z.union([isoDate(), isoDateTime()], {
  error: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time from 1970 to 9999',
});

export const rangeQuery = z.object({
  startDate: dateBound
    .optional()
    .describe('first UTC day included (ISO date or date-time); default: 2000-01-01 (all time)'),
  endDate: dateBound
    .optional()
    .describe('last UTC day included (ISO date or date-time); default: today (UTC)'),
});
export type RangeQuery = z.output<typeof rangeQuery>;

export const heatmapQuery = rangeQuery.extend({
  url: z
    .string()
    .min(1)
    .max(4096)
    .describe('the page url; matched exactly against the events’ url, ignoring any #fragment'),
});
export type HeatmapQuery = z.output<typeof heatmapQuery>;

export const flowParams = z.object({ flowId: z.string() });

const dateRange = z
  .object({
    startDate: z
      .string()
      .describe('the query’s startDate as sent; when absent, 2000-01-01 (or the end day if earlier)'),
    endDate: z
      .string()
      .describe(
        'the query’s endDate as sent; when absent, today UTC (or the start day if later), YYYY-MM-DD',
      ),
  })
  .describe('the range counted: whole UTC days, both ends included');

const rate = z.number().min(0).max(1);

export const overviewResponse = dataOf(
  z.object({
    totalFlows: z.number().int().describe('non-archived flows now (not range-bound)'),
    publishedFlows: z.number().int().describe('PUBLISHED flows now (not range-bound)'),
    activeUsers: z
      .number()
      .int()
      .describe('distinct users with an event in the range (userId, else anonymousId)'),
    totalEvents: z.number().int().describe('events processed in the range (by event timestamp)'),
    flowCompletions: z.number().int().describe('FLOW_COMPLETED events naming a flow'),
    completionRate: rate.describe('flowCompletions / FLOW_STARTED events, at most 1; 0 without starts'),
    dateRange,
  }),
);

export const flowAnalyticsResponse = dataOf(
  z.object({
    flowId: uuid,
    flowName: z.string(),
    totalStarts: z.number().int().describe('FLOW_STARTED events'),
    completed: z.number().int().describe('FLOW_COMPLETED events'),
    dismissed: z.number().int().describe('FLOW_DISMISSED events'),
    skipped: z.number().int().describe('FLOW_SKIPPED events'),
    completionRate: rate.describe('completed / totalStarts, at most 1; 0 without starts'),
    stepDropOff: z
      .array(
        z.object({
          stepId: uuid,
          stepOrder: z.number().int(),
          stepTitle: z.string().nullable(),
          reached: z.number().int().describe('distinct users with a STEP_VIEWED of this step'),
          dropOffCount: z
            .number()
            .int()
            .describe(
              'reached − reached of the next step (last step: − users who completed); never negative',
            ),
          dropOffRate: rate,
        }),
      )
      .describe('the flow’s current steps, in order'),
    dateRange,
  }),
);

export const heatmapResponse = dataOf(
  z.object({
    url: z.string(),
    dateRange,
    totalClicks: z.number().int().describe('CLICK events of the page'),
    points: z
      .array(
        z.object({
          x: z.number().int(),
          y: z.number().int(),
          selector: z.string().nullable(),
          count: z.number().int().describe('CLICK events at this point'),
          rageClicks: z.number().int(),
          deadClicks: z.number().int(),
        }),
      )
      .describe('by count, descending; at most 5,000'),
    elements: z
      .array(
        z.object({
          selector: z.string(),
          clicks: z.number().int(),
          rageClicks: z.number().int(),
          deadClicks: z.number().int(),
        }),
      )
      .describe('by clicks, descending; at most 1,000'),
  }),
);
