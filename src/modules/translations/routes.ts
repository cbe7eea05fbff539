import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const translationRoutes: FastifyPluginAsyncZod = async () => {};
