import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import { computeExperimentResults, experimentResults } from './results.js';
import {
  computeResultsResponse,
  createExperimentBody,
  experimentList,
  experimentResponse,
  listExperimentsQuery,
  resultsResponse,
  updateExperimentBody,
} from './schemas.js';
import {
  archiveExperiment,
  createExperiment,
  getExperiment,
  listExperiments,
  startExperiment,
  stopExperiment,
  updateExperiment,
} from './service.js';

const tags = ['experiments'];
const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

export const experimentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/experiments',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'List experiments',
        querystring: listExperimentsQuery,
        response: { 200: experimentList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listExperiments(ctxOf(request), request.query),
  );

  app.post(
    '/api/experiments',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create an experiment (draft)',
        description:
          'Variants in order, the first being the control; their splitPercentage values sum to 100. ' +
          '403 PLAN_FEATURE_UNAVAILABLE on a plan without experiments.',
        body: createExperimentBody,
        response: { 201: experimentResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createExperiment(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/experiments/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get an experiment',
        params: idParams,
        response: { 200: experimentResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getExperiment(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/experiments/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update a draft experiment',
        description: 'Only in draft: otherwise 409 INVALID_STATE_TRANSITION.',
        params: idParams,
        body: updateExperimentBody,
        response: { 200: experimentResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      data: await updateExperiment(ctxOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/api/experiments/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Delete (archive) an experiment',
        description: 'From any state; its assignments and results are kept.',
        params: idParams,
        response: { 200: experimentResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await archiveExperiment(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/experiments/:id/start',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Start an experiment',
        description:
          'From draft or stopped; needs at least 2 variants summing to 100 and an endDate still ahead ' +
          '(400 otherwise). 403 PLAN_FEATURE_UNAVAILABLE on a plan without experiments.',
        params: idParams,
        response: { 200: experimentResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await startExperiment(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/experiments/:id/stop',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Stop a running experiment',
        description: 'No new assignments; existing ones are kept (and apply again if it is restarted).',
        params: idParams,
        response: { 200: experimentResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await stopExperiment(ctxOf(request), request.params.id) }),
  );

  app.get(
    '/api/experiments/:id/results',
    {
      config: viewer,
      schema: {
        tags,
        summary: "An experiment's participants and conversions, with daily cumulative series",
        params: idParams,
        response: { 200: resultsResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await experimentResults(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/experiments/:id/compute-results',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Statistical analysis of an experiment',
        description:
          'Per variant: sampleSize, conversions, conversionRate (a fraction), isControl, and against the ' +
          'control (the first variant) lift with 95% CI, pValue, probabilityToBeatControl and an always-valid ' +
          'sequential interval; srm (sample-ratio mismatch). Reads only: any member may run it.',
        params: idParams,
        response: { 200: computeResultsResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await computeExperimentResults(ctxOf(request), request.params.id) }),
  );
};
