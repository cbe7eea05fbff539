import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { API_KEY, requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams, jsonObject } from '../../platform/http/schemas.js';
import { flowRecord } from '../flows/index.js';
import {
  applyContentSuggestion,
  applyStepSuggestion,
  contentTargetHealth,
  flowTargetHealth,
  needsAttention,
} from './health-service.js';
import { createPickToken, getPick, submitPick, verifyPick } from './pick-service.js';
import {
  applySuggestionBody,
  attentionList,
  contentTargetParams,
  createPickBody,
  pickResponse,
  pickResultBody,
  pickTokenResponse,
  pickVerifyBody,
  pickVerifyResponse,
  stepParams,
  targetHealthList,
} from './schemas.js';

const tags = ['targeting'];
/** A bodiless POST is an empty body. */
const bodiless = async (request: { body: unknown }) => {
  request.body ??= {};
};
const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

export const targetingRoutes: FastifyPluginAsyncZod = async (app) => {
  const { deps } = app;

  app.get(
    '/api/flows/:id/target-health',
    {
      config: viewer,
      schema: {
        tags,
        summary: "Target health of a flow's steps (last 7 days)",
        params: idParams,
        response: { 200: targetHealthList, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await flowTargetHealth(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/flows/:id/steps/:stepId/apply-suggested-selector',
    {
      config: editor,
      schema: {
        tags,
        summary: "Set a step's targetSelector to its suggested selector (audited)",
        params: stepParams,
        body: applySuggestionBody,
        response: {
          200: z.object({ data: flowRecord.shape.steps.element }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
      preValidation: bodiless,
    },
    async (request) => ({
      data: await applyStepSuggestion(
        ctxOf(request),
        request.params.id,
        request.params.stepId,
        request.body.suggestedSelector,
      ),
    }),
  );

  app.get(
    '/api/content/:type/:id/target-health',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Target health of a tooltip or beacon (last 7 days)',
        params: contentTargetParams,
        response: { 200: targetHealthList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await contentTargetHealth(ctxOf(request), request.params.type, request.params.id),
    }),
  );

  app.post(
    '/api/content/:type/:id/apply-suggested-selector',
    {
      config: editor,
      schema: {
        tags,
        summary: "Set a tooltip's or beacon's targetSelector to its suggested selector (audited)",
        params: contentTargetParams,
        body: applySuggestionBody,
        response: { 200: z.object({ data: jsonObject }), ...errors(400, 401, 403, 404, 409) },
      },
      preValidation: bodiless,
    },
    async (request) => ({
      data: await applyContentSuggestion(
        ctxOf(request),
        request.params.type,
        request.params.id,
        request.body.suggestedSelector,
      ),
    }),
  );

  app.get(
    '/api/target-health/needs-attention',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Steps and content whose lookups mostly fail (last hour, or 7 days)',
        response: { 200: attentionList, ...errors(401, 403) },
      },
    },
    async (request) => ({ data: await needsAttention(ctxOf(request)) }),
  );

  app.post(
    '/api/pick-tokens',
    {
      config: editor,
      schema: {
        tags,
        summary: 'A pick token for the element picker (10 minutes, single use)',
        body: createPickBody,
        response: { 201: pickTokenResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createPickToken(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/pick-tokens/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: "The pick of one of the user's pick tokens (poll until picked or expired)",
        params: idParams,
        response: { 200: pickResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getPick(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/sdk/pick/verify',
    {
      config: { auth: API_KEY },
      schema: {
        tags: ['sdk'],
        summary: "The SDK's element picker: what a pick token is for",
        body: pickVerifyBody,
        response: { 200: pickVerifyResponse, ...errors(400, 401, 404, 410, 429) },
      },
    },
    async (request) => ({
      data: await verifyPick(
        deps.database.db,
        request.sdk!.tenantId,
        request.body.token,
        new Date(deps.clock()),
      ),
    }),
  );

  app.post(
    '/api/sdk/pick/result',
    {
      config: { auth: API_KEY },
      schema: {
        tags: ['sdk'],
        summary: "The SDK's element picker: the picked selector and fingerprint (uses the token)",
        body: pickResultBody,
        response: { 204: emptyResponse, ...errors(400, 401, 404, 410, 429) },
      },
    },
    async (request, reply) => {
      await submitPick(deps.database.db, request.sdk!.tenantId, request.body, new Date(deps.clock()));
      return reply.code(204).send(null);
    },
  );
};
