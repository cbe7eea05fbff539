import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const flowRoutes: FastifyPluginAsyncZod = async () => {};
