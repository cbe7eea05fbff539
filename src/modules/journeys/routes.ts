import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors, idParams } from '../../platform/http/schemas.js';
import { publishBody, registerVersionRoutes } from '../versions/index.js';
import { journeyAnalytics } from './analytics.js';
import { enrollByHand, listEnrollments } from './enrollments.js';
import {
  analyticsResponse,
  canvasBody,
  createJourneyBody,
  enrollBody,
  enrollmentList,
  enrollmentResponse,
  journeyList,
  journeyResponse,
  listEnrollmentsQuery,
  listJourneysQuery,
  updateJourneyBody,
} from './schemas.js';
import {
  archiveJourney,
  createJourney,
  getJourney,
  journeyVersions,
  listJourneys,
  pauseJourney,
  publishJourney,
  replaceCanvas,
  restoreJourney,
  unpublishJourney,
  updateJourney,
} from './service.js';

const tags = ['journeys'];
const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

export const journeyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/journeys',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'List journeys',
        querystring: listJourneysQuery,
        response: { 200: journeyList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listJourneys(ctxOf(request), request.query),
  );

  app.post(
    '/api/journeys',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create a journey (with its canvas)',
        body: createJourneyBody,
        response: { 201: journeyResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createJourney(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/journeys/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get a journey with its canvas, audience and counts',
        params: idParams,
        response: { 200: journeyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getJourney(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/journeys/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update a journey (never its canvas)',
        params: idParams,
        body: updateJourneyBody,
        response: { 200: journeyResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: await updateJourney(ctxOf(request), request.params.id, request.body) }),
  );

  app.put(
    '/api/journeys/:id/canvas',
    {
      config: editor,
      schema: {
        tags,
        summary: "Replace a journey's canvas atomically",
        params: idParams,
        body: canvasBody,
        response: { 200: journeyResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await replaceCanvas(ctxOf(request), request.params.id, request.body) }),
  );

  app.delete(
    '/api/journeys/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Archive a journey (its in-progress enrollments stop)',
        params: idParams,
        response: { 200: journeyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await archiveJourney(ctxOf(request), request.params.id) }),
  );

  app.post(
    '/api/journeys/:id/publish',
    {
      config: editor,
      schema: {
        tags,
        summary:
          'Publish a journey (or resume a paused one; a published one with unpublished changes: the next version)',
        params: idParams,
        body: publishBody,
        response: { 200: journeyResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      data: await publishJourney(ctxOf(request), request.params.id, request.body?.note),
    }),
  );

  registerVersionRoutes(app, journeyVersions);

  const lifecycle = [
    ['unpublish', unpublishJourney, 'Unpublish a journey (back to draft; enrollments go on)'],
    ['pause', pauseJourney, 'Pause a journey (no new enrollments; enrollments go on)'],
    ['restore', restoreJourney, 'Restore an archived journey (back to draft)'],
  ] as const;
  for (const [action, run, summary] of lifecycle) {
    app.post(
      `/api/journeys/:id/${action}`,
      {
        config: editor,
        schema: {
          tags,
          summary,
          params: idParams,
          response: { 200: journeyResponse, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => ({ data: await run(ctxOf(request), request.params.id) }),
    );
  }

  app.get(
    '/api/journeys/:id/enrollments',
    {
      config: viewer,
      schema: {
        tags,
        summary: "List a journey's enrollments",
        params: idParams,
        querystring: listEnrollmentsQuery,
        response: { 200: enrollmentList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => listEnrollments(ctxOf(request), request.params.id, request.query),
  );

  app.post(
    '/api/journeys/:id/enrollments',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Enroll an end user by hand',
        params: idParams,
        body: enrollBody,
        response: { 201: enrollmentResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await enrollByHand(ctxOf(request), request.params.id, request.body) }),
  );

  app.get(
    '/api/journeys/:id/analytics',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Journey analytics: per node, per status, conversion and median time to goal',
        params: idParams,
        response: { 200: analyticsResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await journeyAnalytics(ctxOf(request), request.params.id) }),
  );
};
