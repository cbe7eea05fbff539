import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const pricingRoutes: FastifyPluginAsyncZod = async () => {};
