import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { cursorKey, exportQuery, exportRange, sendKeysetExport } from '../../platform/http/export-stream.js';
import { errors, uuid } from '../../platform/http/schemas.js';
import { contentTag } from './content-routes.js';
import { CONTENT_DEFS } from './definitions.js';
import { findSurveyResponsesForExport } from './store/responses.js';

/**
 * GET /api/content/surveys/responses/export (docs/export.md): the tenant's survey responses
 * (of one survey with `surveyId`) in the order the service stored them, `from`/`to` bounding
 * that time; readable by whoever may list a survey's responses (VIEWER).
 */

const CURSOR_KIND = 'survey-responses';

export const SURVEY_RESPONSE_EXPORT_COLUMNS = [
  'id',
  'surveyId',
  'endUserId',
  'response',
  'submittedAt',
  'createdAt',
] as const;

const query = exportQuery.extend({
  surveyId: uuid.optional().describe("only this survey's responses; default: every survey's"),
});

export const surveyResponseExportRoutes: FastifyPluginAsyncZod = async (app) => {
  const key = cursorKey(app.deps.config.jwtSecret);
  app.get(
    '/api/content/surveys/responses/export',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags: [contentTag(CONTENT_DEFS.surveys)],
        summary:
          'Export survey responses as NDJSON or CSV (streamed, resumable with a cursor; gzip when accepted)',
        querystring: query,
        response: {
          200: z
            .string()
            .describe('NDJSON (one response a line) or CSV with a header row; every row has its cursor'),
          ...errors(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const ctx = ctxOf(request);
      const q = request.query;
      const range = { ...exportRange(q, ctx.now), surveyId: q.surveyId };
      return sendKeysetExport(request, reply, {
        format: q.format,
        name: 'survey-responses-export',
        columns: SURVEY_RESPONSE_EXPORT_COLUMNS,
        key,
        kind: CURSOR_KIND,
        cursor: q.cursor,
        read: (after, limit) => findSurveyResponsesForExport(ctx.db, ctx.tenantId, range, after, limit),
        toValues: (r) => ({
          id: r.id,
          surveyId: r.surveyId,
          endUserId: r.endUserId,
          response: r.response,
          submittedAt: r.submittedAt.toISOString(),
          createdAt: new Date(r.at).toISOString(),
        }),
      });
    },
  );
};
