import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const tenantRoutes: FastifyPluginAsyncZod = async () => {};
