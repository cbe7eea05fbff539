import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { analyticsRoutes } from './analytics/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { audienceRoutes } from './audiences/routes.js';
import { auditRoutes } from './audit/routes.js';
import { authRoutes } from './auth/routes.js';
import { contentTag } from './content/content-routes.js';
import { CONTENT_TYPE_LIST } from './content/definitions.js';
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
const modules: FastifyPluginAsyncZod[] = [
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
];

/** The OpenAPI tags the routes use, in the order the documentation shows them. */
export const API_TAGS: { name: string; description: string }[] = [
  { name: 'health', description: 'Liveness and dependency checks (load balancers)' },
  { name: 'auth', description: 'Sign-up, sign-in, sessions, password reset, invite acceptance' },
  { name: 'tenants', description: 'The current company, its members and invites' },
  { name: 'api-keys', description: 'API keys the SDK authenticates with' },
  { name: 'audit', description: "The tenant's audit trail" },
  { name: 'audiences', description: 'Rule-based audiences that target flows and content' },
  { name: 'flows', description: 'Product tours and their steps' },
  ...CONTENT_TYPE_LIST.map((def) => ({
    name: contentTag(def),
    description: `${def.label} content: drafts, publishing, archive`,
  })),
  { name: 'nps-surveys', description: 'NPS surveys, their responses and results' },
  { name: 'translations', description: 'Locales and translated content fields' },
  { name: 'pricing', description: "Plans, the tenant's subscription and usage" },
  { name: 'admin', description: 'Platform administration (platform admin token)' },
  { name: 'sdk', description: "What the browser SDK calls from customers' pages (API key)" },
  { name: 'analytics', description: 'Reports over processed events' },
];

export async function registerModules(app: FastifyInstance): Promise<void> {
  for (const routes of modules) await app.register(routes);
}
