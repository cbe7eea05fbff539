import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const audienceRoutes: FastifyPluginAsyncZod = async () => {};
