import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps.js';
import { registerModules } from './modules/index.js';
import { SESSION_COOKIE } from './platform/auth/cookies.js';
import { installGuard } from './platform/auth/guard.js';
import { installErrorHandling } from './platform/http/error-handler.js';
import { jsonBodyParser, refuseNulInUrls } from './platform/http/json-body.js';
import { installSecurityHeaders } from './platform/http/security-headers.js';
import { httpServerOptions } from './platform/http/server-options.js';
import { SERVICE_VERSION } from './platform/version.js';

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    /** Set by routes that trace work beyond the request (event batches); logged with 500s. */
    correlationId: string | null;
  }
}

/** The HTTP application: cross-cutting plugins, then every module. Tests drive it through inject(). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // Per-request access lines would cost the SDK hot path; errors are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
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
  refuseNulInUrls(app);
  installErrorHandling(app);
  installSecurityHeaders(app, { hsts: deps.config.cookieSecure });
  installGuard(app);
  // Cookies are parsed where read (readCookie), not on every request.
  await app.register(cookie, { hook: false });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'In-app guidance service',
        version: SERVICE_VERSION,
        description:
          'Dashboard APIs (JWT session) and SDK APIs (API key). Errors use one envelope: `{ error }`.',
      },
      components: {
        securitySchemes: {
          session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await registerModules(app);
  return app;
}
