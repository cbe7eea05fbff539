import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  LogController,
  type onSendHookHandler,
} from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps.js';
import { installGuard } from './platform/auth/guard.js';
import { corsStep } from './platform/http/cors.js';
import { installRequestEdge } from './platform/http/edge.js';
import { installErrorHandling, refuseWhileClosing } from './platform/http/error-handler.js';
import { jsonBodyParser, refuseNulInUrls } from './platform/http/json-body.js';
import { installOpenApi } from './platform/http/openapi.js';
import { lazyRequestLogger } from './platform/http/request-logger.js';
import { addRouteHooks } from './platform/http/route-hooks.js';
import { securityHeadersStep } from './platform/http/security-headers.js';
import { httpServerOptions, refuseMissingHost } from './platform/http/server-options.js';

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    /** Set by routes that trace work beyond the request (event batches); logged with 500s. */
    correlationId: string | null;
  }
}

const API_DESCRIPTION = [
  'The API of a multi-tenant in-app guidance service: product tours (flows), tooltips, beacons, task lists, ' +
    'surveys, announcements, self-help widgets and NPS surveys, targeted by rule-based audiences, with ' +
    'translations, analytics and plans.',
  '**Two kinds of callers.** The dashboard signs in (`/api/auth/*`) and sends its access token as ' +
    '`Authorization: Bearer` or the `session_token` cookie; each operation lists the least role it needs. ' +
    "The SDK embedded in customers' pages calls `/api/sdk/*` with a tenant API key (`X-API-Key`).",
  '**Answers.** Records come as `{ data }`, lists as `{ data, meta: { page, limit, total, totalPages } }`; ' +
    'creation answers 201, a hard delete 204. Every error is `{ error: { message, statusCode, code, category, ' +
    'details? } }` (the `Error` schema); branch on `code`. Ids of other tenants answer 404 like unknown ones.',
  'Typed clients: the `@guidance/api-types` workspace package holds TypeScript types generated from this ' +
    'document (docs/openapi.md).',
].join('\n\n');

/**
 * Read-your-writes across caches: a dashboard write answers only once this instance has heard
 * the database announce the changes it committed (platform/change-feed.ts), so the next request
 * here already sees them (a revoked key refused, a new setting in the SDK config). Other
 * instances hear them a moment later.
 */
function awaitOwnChanges(app: FastifyInstance): void {
  const { changes } = app.deps;
  app.addHook('onReady', async () => {
    await changes.ready;
  });
  const awaitChanges: onSendHookHandler = (_request, reply, payload, done) => {
    if (reply.statusCode >= 400) return done(null, payload);
    changes.sync().then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };
  // Only on the routes that can change something: reads and SDK calls (the hot path) run no
  // onSend hook at all.
  app.addHook('onRoute', (route) => {
    const reads = [route.method].flat().every((m) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS');
    if (reads || route.config?.auth?.kind === 'apiKey') return;
    addRouteHooks(route, 'onSend', awaitChanges, 'last');
  });
}

/** The HTTP application: cross-cutting plugins, then every module's routes. Tests drive it through inject(). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // Per-request access lines would cost the SDK hot path; errors are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
    requestIdHeader: 'x-request-id',
    // Request ids only need to be unique; randomUUID draws from a cached entropy pool.
    genReqId: () => randomUUID(),
    // Draining answers 503 in the envelope (installErrorHandling).
    return503OnClosing: false,
    ...httpServerOptions(deps.config),
  }) as unknown as FastifyInstance;

  app.decorate('deps', deps);
  app.decorateRequest('correlationId', null);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
  installErrorHandling(app);
  // CORS first: every answer, the refusals of the next steps included, carries its headers.
  installRequestEdge(app, [
    corsStep(deps.config.corsOrigins),
    securityHeadersStep(app, {
      hsts: deps.config.cookieSecure,
      googleSignIn: Boolean(deps.config.google.clientId),
    }),
    refuseWhileClosing(app),
    refuseNulInUrls,
    refuseMissingHost,
  ]);
  installGuard(app);
  await installOpenApi(app, {
    title: 'In-app guidance service',
    description: API_DESCRIPTION,
    // The documentation shows tags in the order of the modules.
    tags: deps.modules.manifests.flatMap((m) => m.tags ?? []),
  });
  awaitOwnChanges(app);
  for (const module of deps.modules.manifests) if (module.routes) await app.register(module.routes);
  return app;
}
