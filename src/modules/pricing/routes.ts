import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { platformAdmin, requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import {
  adminSubscriptionResponse,
  changeSubscriptionBody,
  checkFeatureBody,
  checkFeatureResponse,
  planList,
  subscriptionResponse,
  usageResponse,
} from './schemas.js';
import {
  changeTenantSubscription,
  checkFeature,
  getCurrentSubscription,
  getTenantSubscription,
  getUsage,
  listPlans,
} from './service.js';

const tags = ['pricing'];
const viewer = { auth: requireRole('VIEWER') };

export const pricingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/pricing/plans',
    {
      config: viewer,
      schema: { tags, summary: 'List plans', response: { 200: planList, ...errors(401, 403) } },
    },
    async (request) => ({ data: await listPlans(ctxOf(request).db) }),
  );

  app.get(
    '/api/pricing/current',
    {
      config: viewer,
      schema: {
        tags,
        summary: "Get the company's subscription",
        response: { 200: subscriptionResponse, ...errors(401, 403) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      return { data: await getCurrentSubscription(ctx.db, ctx.tenantId, ctx.now) };
    },
  );

  app.post(
    '/api/pricing/check-feature',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Check whether the plan allows a feature',
        description:
          'A feature outside the plan: allowed false, usage null, reason says why. A limited resource: allowed while used < limit (limit null = unlimited).',
        body: checkFeatureBody,
        response: { 200: checkFeatureResponse, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      return { data: await checkFeature(ctx.db, ctx.tenantId, request.body.feature, ctx.now) };
    },
  );

  app.get(
    '/api/pricing/usage',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get usage against the plan limits',
        response: { 200: usageResponse, ...errors(401, 403) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      return { data: await getUsage(ctx.db, ctx.tenantId, ctx.now) };
    },
  );

  // Platform administration (DECISIONS §3): platform token, admin rate scopes; no ServiceCtx.
  const now = () => new Date(app.deps.clock());
  const adminTags = ['admin'];

  app.get(
    '/api/admin/tenants/:id/subscription',
    {
      config: { auth: platformAdmin('read') },
      schema: {
        tags: adminTags,
        summary: "Get a tenant's subscription",
        params: idParams,
        response: { 200: adminSubscriptionResponse, ...errors(401, 404, 429) },
      },
    },
    async (request) => ({
      data: await getTenantSubscription(app.deps.database.db, request.params.id, now()),
    }),
  );

  app.put(
    '/api/admin/tenants/:id/subscription',
    {
      config: { auth: platformAdmin('write') },
      schema: {
        tags: adminTags,
        summary: "Change a tenant's plan",
        description: 'Moves the tenant to the plan and starts a new one-month period now; effective at once.',
        params: idParams,
        body: changeSubscriptionBody,
        response: { 200: adminSubscriptionResponse, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const data = await changeTenantSubscription(app.deps.database.db, {
        tenantId: request.params.id,
        plan: request.body.plan,
        now: now(),
        ip: request.ip,
      });
      return { data };
    },
  );
};
