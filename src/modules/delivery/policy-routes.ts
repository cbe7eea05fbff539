import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { deliveryPolicyBody, deliveryPolicyResponse } from './policy-schemas.js';
import { getDeliveryPolicy, putDeliveryPolicy } from './policy-service.js';

const tags = ['delivery'];

/** `GET` / `PUT /api/delivery-policy`: the tenant's priority caps, cooldown and dismissal rule. */
export const deliveryPolicyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/delivery-policy',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags,
        summary: "The tenant's delivery policy (defaults hold nothing back)",
        response: { 200: deliveryPolicyResponse, ...errors(401, 403) },
      },
    },
    async (request) => ({ data: await getDeliveryPolicy(ctxOf(request)) }),
  );

  app.put(
    '/api/delivery-policy',
    {
      config: { auth: requireRole('ADMIN') },
      schema: {
        tags,
        summary: 'Replace the delivery policy: frequency caps, cooldown, afterDismissDays (audited)',
        description:
          'Caps count the distinct auto-started items of a scope a user was served in a rolling window (or this session); manual items and items with bypassCaps are never held back. docs/delivery-policy.md.',
        body: deliveryPolicyBody,
        response: { 200: deliveryPolicyResponse, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await putDeliveryPolicy(ctxOf(request), request.body) }),
  );
};
