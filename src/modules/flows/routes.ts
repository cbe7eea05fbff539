import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams } from '../../platform/http/schemas.js';
import { publishBody, registerVersionRoutes } from '../versions/index.js';
import {
  createFlowBody,
  createStepBody,
  deletedFlowResponse,
  deleteFlowQuery,
  flowList,
  flowResponse,
  listFlowsQuery,
  reorderStepsBody,
  stepList,
  stepParams,
  stepResponse,
  updateFlowBody,
  updateStepBody,
} from './schemas.js';
import {
  archiveFlow,
  createFlow,
  deleteFlow,
  flowVersions,
  getFlow,
  listFlows,
  publishFlow,
  restoreFlow,
  updateFlow,
} from './service.js';
import { addStep, deleteStep, getStep, listSteps, reorderSteps, updateStep } from './steps.js';

const tags = ['flows'];
const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

export const flowRoutes: FastifyPluginAsyncZod = async (app) => {
  // ---- flows ---------------------------------------------------------------------------------

  app.get(
    '/api/flows',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'List flows',
        querystring: listFlowsQuery,
        response: { 200: flowList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listFlows(ctxOf(request), request.query),
  );

  app.post(
    '/api/flows',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create a flow',
        body: createFlowBody,
        response: { 201: flowResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send({ data: await createFlow(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/flows/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get a flow',
        params: idParams,
        response: { 200: flowResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getFlow(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/flows/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update a flow',
        params: idParams,
        body: updateFlowBody,
        response: { 200: flowResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await updateFlow(ctxOf(request), request.params.id, request.body) }),
  );

  app.delete(
    '/api/flows/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Delete (archive) a flow',
        params: idParams,
        querystring: deleteFlowQuery,
        response: { 200: deletedFlowResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const c = ctxOf(request);
      const { flow, disabledDependents } = await deleteFlow(
        c,
        request.params.id,
        request.query.disableDependents
          ? (tx) => app.deps.references.disableDependents(tx, 'flow', c.tenantId, request.params.id, c.now)
          : undefined,
      );
      return { data: flow, disabledDependents };
    },
  );

  app.post(
    '/api/flows/:id/publish',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Publish a flow (a published one with unpublished changes: the next version)',
        params: idParams,
        body: publishBody,
        response: { 200: flowResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await publishFlow(ctxOf(request), request.params.id, request.body?.note) }),
  );

  registerVersionRoutes(app, flowVersions);

  const lifecycle = [
    ['archive', archiveFlow, 'Archive a flow'],
    ['restore', restoreFlow, 'Restore an archived flow (back to draft)'],
  ] as const;
  for (const [action, run, summary] of lifecycle) {
    app.post(
      `/api/flows/:id/${action}`,
      {
        config: editor,
        schema: {
          tags,
          summary,
          params: idParams,
          response: { 200: flowResponse, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => ({ data: await run(ctxOf(request), request.params.id) }),
    );
  }

  // ---- steps ---------------------------------------------------------------------------------

  app.get(
    '/api/flows/:id/steps',
    {
      config: viewer,
      schema: {
        tags,
        summary: "List a flow's steps",
        params: idParams,
        response: { 200: stepList, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await listSteps(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/flows/:id/steps',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Add a step to a flow',
        params: idParams,
        body: createStepBody,
        response: { 201: stepResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await addStep(ctxOf(request), request.params.id, request.body) }),
  );

  app.post(
    '/api/flows/:id/steps/reorder',
    {
      config: editor,
      schema: {
        tags,
        summary: "Reorder a flow's steps",
        params: idParams,
        body: reorderStepsBody,
        response: { 200: stepList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await reorderSteps(ctxOf(request), request.params.id, request.body.stepIds),
    }),
  );

  app.get(
    '/api/flows/:id/steps/:stepId',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get a step',
        params: stepParams,
        response: { 200: stepResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getStep(ctxOf(request), request.params.id, request.params.stepId) }),
  );

  app.patch(
    '/api/flows/:id/steps/:stepId',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update a step',
        params: stepParams,
        body: updateStepBody,
        response: { 200: stepResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      data: await updateStep(ctxOf(request), request.params.id, request.params.stepId, request.body),
    }),
  );

  app.delete(
    '/api/flows/:id/steps/:stepId',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Delete a step',
        params: stepParams,
        response: { 204: emptyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteStep(ctxOf(request), request.params.id, request.params.stepId);
      return reply.code(204).send(null);
    },
  );
};
