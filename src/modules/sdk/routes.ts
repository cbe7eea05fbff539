import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { API_KEY, requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { emptyResponse, errors, JSON_UTF8 } from '../../platform/http/schemas.js';
import { etagMatches } from '../../platform/http/static-assets.js';
import { createDeliveryCache, createServeLedger, createSessionLookup } from '../delivery/index.js';
import { findEndUserRef, identifyEndUser } from '../end-users/index.js';
import { serverEvent } from '../events/index.js';
import { createBodyBuffers } from './body-buffers.js';
import { createConfigCache } from './config-cache.js';
import { explainParams, explainQuery, explainResponse } from './explain-schemas.js';
import {
  identifyBody,
  identifyResponse,
  sdkConfigResponse,
  sessionBody,
  sessionResponse,
} from './schemas.js';
import { explainSession, rememberersOf, serveSession } from './serve-session.js';
import { listItemCatalog } from './store.js';

const tags = ['sdk'];

/**
 * Session answers (tens of kB of JSON) are compressed when the client accepts it: brotli at
 * quality 1, else gzip at level 1, from 1 kB up. Higher levels save little more for several times
 * the CPU (bench/compression.ts; bench/README.md, "Session compression"). Smaller answers and the
 * other SDK endpoints (config: a few hundred bytes) are sent as they are.
 */
const SESSION_COMPRESSION = {
  threshold: 1024,
  encodings: ['br', 'gzip'] as ('br' | 'gzip')[],
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } },
  zlibOptions: { level: 1 },
};

/**
 * The SDK endpoints (API key): config, identify, session (events: modules/events). The app's one
 * event log (group commit) stores the IDENTIFY event of identify and the session start of session.
 */
export const sdkRoutes: FastifyPluginAsyncZod = async (app) => {
  const { deps } = app;
  const { recorder } = app.eventLog;
  const contributors = deps.modules.delivery;
  const configs = createConfigCache({ db: deps.database.db, changes: deps.changes, clock: deps.clock });
  const choosing = contributors.filter((c) => c.choose);
  const sessionEnv = {
    clock: deps.clock,
    recorder,
    lookup: createSessionLookup(deps.database, contributors),
    cache: createDeliveryCache({ database: deps.database, log: deps.log, contributors }),
    contributors: choosing,
    rememberers: rememberersOf(deps.database, choosing),
    bodies: createBodyBuffers(),
    serves: createServeLedger(deps.database),
  };

  app.get(
    '/api/sdk/config',
    {
      config: { auth: API_KEY },
      schema: {
        tags,
        summary: 'Company settings, plan features and locales (ETag; If-None-Match answers 304)',
        response: { 200: sdkConfigResponse, 304: emptyResponse, ...errors(401, 429) },
      },
    },
    async (request, reply) => {
      const entry = await configs.get(request.sdk!.tenantId);
      reply.header('cache-control', 'private, max-age=60').header('etag', entry.etag);
      if (etagMatches(request.headers['if-none-match'], entry.etag))
        return reply.code(304).send(undefined as never);
      // The body is serialized and encoded once per tenant; bytes are sent as they are.
      return reply.type(JSON_UTF8).send(entry.body as never);
    },
  );

  app.post(
    '/api/sdk/identify',
    {
      config: { auth: API_KEY },
      schema: {
        tags,
        summary: 'Create or update an end user (traits merge shallowly); links an anonymousId',
        description:
          'An upsert: 200 whether the end user was created or updated (or an anonymous visitor was adopted). Records an IDENTIFY event; its correlationId is sent as X-Correlation-Id.',
        body: identifyBody,
        response: { 200: identifyResponse, ...errors(400, 401, 413, 429) },
      },
    },
    async (request, reply) => {
      const sdk = request.sdk!;
      const nowMs = deps.clock();
      const { id } = await identifyEndUser(
        deps.database.db,
        deps.modules.endUserMergers,
        sdk.tenantId,
        request.body,
        new Date(nowMs),
      );
      const { userId, anonymousId, traits } = request.body;
      const event = serverEvent('IDENTIFY', nowMs, {
        userId,
        anonymousId,
        properties: { traits: traits ?? {}, endUserId: id },
      });
      const { correlationId, stored } = recorder.record(sdk, event, new Date(nowMs));
      request.correlationId = correlationId;
      await stored;
      reply.header('X-Correlation-Id', correlationId);
      return reply.code(200).send({ data: { id } });
    },
  );

  // "Why didn't it show?": the session's own decision function, for any end user and url.
  app.get(
    '/api/end-users/:id/delivery',
    {
      config: { auth: requireRole('VIEWER') },
      schema: {
        tags: ['delivery'],
        summary:
          "Why didn't it show? What a session of this end user on this url is served, and why not the rest",
        description:
          'Every flow, content item and NPS survey of the tenant, SHOWN or SUPPRESSED with one reason code (docs/delivery-policy.md). Computed by the same decision function as POST /api/sdk/session, without writing anything.',
        params: explainParams,
        querystring: explainQuery,
        response: { 200: explainResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      const ref = await findEndUserRef(ctx.db, ctx.tenantId, request.params.id);
      if (!ref) throw notFound('End user');
      const { url } = request.query;
      const explained = await explainSession(sessionEnv, ctx.tenantId, ref, url);
      const catalog = await listItemCatalog(ctx.db, ctx.tenantId);
      const byKey = new Map(catalog.map((c) => [`${c.kind}:${c.id}`, c]));
      const seen = new Set<string>();
      const items = explained.map((e) => {
        const key = `${e.kind}:${e.id}`;
        seen.add(key);
        const entry = byKey.get(key);
        const contentType = typeof e.record.contentType === 'string' ? e.record.contentType : null;
        return {
          kind: e.kind,
          contentType,
          id: e.id,
          name: entry?.name ?? String(e.record.name ?? ''),
          decision: e.reason === null ? ('SHOWN' as const) : ('SUPPRESSED' as const),
          reason: e.reason,
          detail: e.detail,
        };
      });
      for (const c of catalog) {
        if (seen.has(`${c.kind}:${c.id}`)) continue;
        items.push({
          kind: c.kind,
          contentType: c.contentType,
          id: c.id,
          name: c.name,
          decision: 'SUPPRESSED',
          reason: c.status === 'SCHEDULED' ? 'SCHEDULED' : 'NOT_PUBLISHED',
          detail: `status ${c.status}`,
        });
      }
      return { data: { url: url ?? null, endUserId: ref.id, items } };
    },
  );

  // Only the session answer is compressed. The plugin lives in a scope around that route alone:
  // registered beside the other SDK routes, it runs a hook on each of their requests too (~3% of
  // the config path's CPU). Request bodies are never inflated.
  const sessionRoute: FastifyPluginAsyncZod = async (scope) => {
    await scope.register(compress, { global: false, globalDecompression: false });
    scope.post(
      '/api/sdk/session',
      {
        config: { auth: API_KEY },
        schema: {
          tags,
          summary: 'Open a session: the flows and content to serve this user on this url, in this locale',
          body: sessionBody,
          response: { 201: sessionResponse, ...errors(400, 401, 413, 429) },
        },
        compress: SESSION_COMPRESSION,
        // A bodiless POST is an anonymous session on no url.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const { body, correlationId } = await serveSession(sessionEnv, request.sdk!, request.body);
        request.correlationId = correlationId;
        // Every byte is with the kernel (or compressed) once the response has finished.
        reply.raw.once('finish', () => sessionEnv.bodies.give(body));
        // Pre-serialized items written into one buffer: sent as is, never re-serialized.
        return reply
          .code(201)
          .header('X-Correlation-Id', correlationId)
          .type(JSON_UTF8)
          .send(body as never);
      },
    );
  };
  await app.register(sessionRoute);
};
