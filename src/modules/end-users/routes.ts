import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { endUserExportRoutes } from './export.js';
import { endUserList, endUserParams, endUserResponse, listEndUsersQuery } from './schemas.js';
import { getEndUser, listEndUsers } from './service.js';

const tags = ['end-users'];

/**
 * The end users of the dashboard (docs/end-users.md): a list to find one and its page. VIEWER, as
 * the delivery explanation of one end user is; the bulk export stays ADMIN (export.ts).
 */
export const endUserRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(endUserExportRoutes);

  app.get(
    '/api/end-users',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags,
        summary: 'List end users, last seen first',
        description:
          "The tenant's end users, most recently seen first (then by id), with a prefix search over userId, anonymous id and the email and name traits.",
        querystring: listEndUsersQuery,
        response: { 200: endUserList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listEndUsers(ctxOf(request), request.query),
  );

  app.get(
    '/api/end-users/:id',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags,
        summary: 'Get an end user (by service id or userId) with its completed and dismissed items',
        params: endUserParams,
        response: { 200: endUserResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: await getEndUser(ctxOf(request), request.params.id) }),
  );
};
