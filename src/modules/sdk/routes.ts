import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tenants } from '../../db/schema/index.js';
import { API_KEY } from '../../platform/auth/guard.js';
import { errors } from '../../platform/http/schemas.js';
import { eventRoutes } from './events-routes.js';

const tags = ['sdk'];
const sdkSecurity = [{ apiKey: [] }];

export const sdkRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(eventRoutes);

  // Placeholder until SDK delivery: proves API-key authentication end to end.
  app.get(
    '/api/sdk/config',
    {
      config: { auth: API_KEY },
      schema: {
        tags,
        security: sdkSecurity,
        response: { 200: z.object({ data: z.object({ name: z.string() }) }), ...errors(401, 429) },
      },
    },
    async (request) => {
      const [tenant] = await app.deps.database.db
        .select({ name: tenants.name })
        .from(tenants)
        .where(eq(tenants.id, request.sdk!.tenantId));
      return { data: { name: tenant?.name ?? '' } };
    },
  );
};
