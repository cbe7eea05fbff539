import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { cursorKey, exportQuery, exportRange, sendKeysetExport } from '../../platform/http/export-stream.js';
import { errors } from '../../platform/http/schemas.js';
import { findEndUsersForExport } from './store.js';

/**
 * GET /api/end-users/export (docs/export.md): the tenant's end users in the order the service
 * created them, `from`/`to` bounding that time. Their traits are personal data, so it takes an
 * ADMIN (as the issue's privacy export of one end user does), not the analytics' VIEWER.
 */

const CURSOR_KIND = 'end-users';

export const END_USER_EXPORT_COLUMNS = [
  'id',
  'userId',
  'anonymousId',
  'traits',
  'firstSeenAt',
  'lastSeenAt',
  'createdAt',
] as const;

export const endUserExportRoutes: FastifyPluginAsyncZod = async (app) => {
  const key = cursorKey(app.deps.config.jwtSecret);
  app.get(
    '/api/end-users/export',
    {
      config: { auth: requireRole('ADMIN') },
      schema: {
        tags: ['end-users'],
        summary: 'Export end users as NDJSON or CSV (streamed, resumable with a cursor; gzip when accepted)',
        querystring: exportQuery,
        response: {
          200: z
            .string()
            .describe('NDJSON (one end user a line) or CSV with a header row; every row has its cursor'),
          ...errors(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const ctx = ctxOf(request);
      const q = request.query;
      const range = exportRange(q, ctx.now);
      return sendKeysetExport(request, reply, {
        format: q.format,
        name: 'end-users-export',
        columns: END_USER_EXPORT_COLUMNS,
        key,
        kind: CURSOR_KIND,
        cursor: q.cursor,
        read: (after, limit) => findEndUsersForExport(ctx.db, ctx.tenantId, range, after, limit),
        toValues: (u) => ({
          id: u.id,
          userId: u.externalId,
          anonymousId: u.anonymousId,
          traits: u.traits,
          firstSeenAt: u.firstSeenAt.toISOString(),
          lastSeenAt: u.lastSeenAt.toISOString(),
          createdAt: new Date(u.at).toISOString(),
        }),
      });
    },
  );
};
