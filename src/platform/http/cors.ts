import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Cross-origin rules, in one place (@fastify/cors, answering preflights in its onRequest hook,
 * before any rate limit or authentication):
 *
 * - SDK routes (`/api/sdk/*`) and the SDK assets (`/sdk/*`) are called from customers' pages on
 *   any origin. They authenticate by API key, never by cookie, so every origin is allowed
 *   (`Access-Control-Allow-Origin: *`, no credentials).
 * - Every other route (the dashboard API) is same-origin unless `CORS_ORIGINS` lists the origin;
 *   listed origins are reflected with `Access-Control-Allow-Credentials: true` (the session
 *   cookie). An unlisted origin gets no CORS headers, and its preflight a 404.
 *
 * Preflights are cached by browsers for PREFLIGHT_MAX_AGE seconds (Chromium caps this at 7200).
 */

export const PREFLIGHT_MAX_AGE = 7200;

/** Response headers a cross-origin script may read: backoff and tracing need them. */
const EXPOSED = [
  'retry-after',
  'x-correlation-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];

const SDK_CORS: FastifyCorsOptions = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  allowedHeaders: ['content-type', 'x-api-key', 'x-correlation-id'],
  exposedHeaders: EXPOSED,
  maxAge: PREFLIGHT_MAX_AGE,
  strictPreflight: false,
};

const dashboardCors = (origins: string[]): FastifyCorsOptions => ({
  origin: origins.length > 0 ? origins : false,
  credentials: true,
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['content-type', 'authorization', 'x-request-id', 'x-correlation-id'],
  exposedHeaders: EXPOSED,
  maxAge: PREFLIGHT_MAX_AGE,
  strictPreflight: false,
});

const NOT_CORS: FastifyCorsOptions = { origin: false };

/** Whether a request path is one the browser SDK calls (any origin may). */
export function isSdkPath(url: string): boolean {
  return url.startsWith('/api/sdk/') || url.startsWith('/sdk/');
}

export async function installCors(app: FastifyInstance, corsOrigins: string[]): Promise<void> {
  const dashboard = dashboardCors(corsOrigins);
  await app.register(cors, {
    hook: 'onRequest',
    // Without an Origin header the request is not a CORS request (browsers send it on every
    // cross-origin one): no CORS headers to add, and the SDK hot path skips the plugin's work.
    delegator: (request: FastifyRequest, callback) =>
      callback(
        null,
        request.headers.origin === undefined ? NOT_CORS : isSdkPath(request.url) ? SDK_CORS : dashboard,
      ),
  });
}
