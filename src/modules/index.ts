import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { analyticsRoutes } from './analytics/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { audienceRoutes } from './audiences/routes.js';
import { auditRoutes } from './audit/routes.js';
import { authRoutes } from './auth/routes.js';
import { browserSdkRoutes } from './browser-sdk/routes.js';
import { contentRoutes } from './content/routes.js';
import { flowRoutes } from './flows/routes.js';
import { healthRoutes } from './health/routes.js';
import { pricingRoutes } from './pricing/routes.js';
import { sdkRoutes } from './sdk/routes.js';
import { tenantRoutes } from './tenants/routes.js';
import { translationRoutes } from './translations/routes.js';

/**
 * Every domain's routes, in one list. A module registers its routes, and at registration time
 * may add to shared registries on `app.deps` (reference finders, dependent disablers).
 */
const modules: (FastifyPluginAsyncZod | FastifyPluginAsync)[] = [
  healthRoutes,
  authRoutes,
  tenantRoutes,
  apiKeyRoutes,
  auditRoutes,
  audienceRoutes,
  flowRoutes,
  contentRoutes,
  translationRoutes,
  pricingRoutes,
  sdkRoutes,
  analyticsRoutes,
  browserSdkRoutes,
];

export async function registerModules(app: FastifyInstance): Promise<void> {
  for (const routes of modules) await app.register(routes);
}
