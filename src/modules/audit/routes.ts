import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { auditLogList, listAuditLogsQuery } from './schemas.js';
import { listAuditLogs } from './service.js';

/** Read-only: no route updates or deletes an audit entry. */
export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/tenants/audit-logs',
    {
      config: { auth: requireRole('ADMIN') },
      schema: {
        tags: ['audit'],
        summary: 'List audit log entries',
        description: "The tenant's audit trail, newest first (createdAt desc, then id desc).",
        querystring: listAuditLogsQuery,
        response: { 200: auditLogList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listAuditLogs(ctxOf(request), request.query),
  );
};
