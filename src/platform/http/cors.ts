import type { FastifyReply } from 'fastify';
import { ANSWERED, type EdgeStep } from './edge.js';

/**
 * Cross-origin rules, in one place, answered first on the request edge (preflights before any rate
 * limit or authentication):
 *
 * - SDK routes (`/api/sdk/*`) and the SDK assets (`/sdk/*`) are called from customers' pages on
 *   any origin. They authenticate by API key, never by cookie, so every origin is allowed
 *   (`Access-Control-Allow-Origin: *`, no credentials).
 * - Every other route (the dashboard API) is same-origin unless `CORS_ORIGINS` lists the origin;
 *   listed origins are reflected with `Access-Control-Allow-Credentials: true` (the session
 *   cookie). An unlisted origin gets no CORS headers, and its preflight a 404.
 *
 * Preflights are cached by browsers for PREFLIGHT_MAX_AGE seconds (Chromium caps this at 7200).
 *
 * Written here rather than with @fastify/cors: its per-request options delegator (needed for two
 * policies) rebuilt the options on every request, Origin or not, which cost the SDK hot path
 * about 6% of its CPU; here a request without an Origin (not a CORS request) costs one lookup.
 */

export const PREFLIGHT_MAX_AGE = 7200;

/** Response headers a cross-origin script may read: backoff and tracing need them. */
const EXPOSED = 'retry-after, x-correlation-id, ratelimit-limit, ratelimit-remaining, ratelimit-reset';

interface Policy {
  credentials: boolean;
  methods: string;
  allowedHeaders: string;
}

const SDK: Policy = {
  credentials: false,
  methods: 'GET, HEAD, POST, OPTIONS',
  allowedHeaders: 'content-type, x-api-key, x-correlation-id',
};

const DASHBOARD: Policy = {
  credentials: true,
  methods: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
  allowedHeaders: 'content-type, authorization, x-request-id, x-correlation-id',
};

/** Whether a request path is one the browser SDK calls (any origin may). */
export function isSdkPath(url: string): boolean {
  return url.startsWith('/api/sdk/') || url.startsWith('/sdk/');
}

/** The CORS step of the request edge (first: every answer, refusals included, carries its headers). */
export function corsStep(corsOrigins: string[]): EdgeStep {
  const listed = new Set(corsOrigins);
  return (request, reply) => {
    const sdk = isSdkPath(request.url);
    // Answers differ by Origin (CORS headers or none): caches must keep them apart.
    if (sdk || listed.size > 0) reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined) return;
    const allowed = sdk ? '*' : listed.has(origin) ? origin : null;
    if (allowed === null) return;
    const policy = sdk ? SDK : DASHBOARD;
    reply.header('access-control-allow-origin', allowed);
    if (policy.credentials) reply.header('access-control-allow-credentials', 'true');
    reply.header('access-control-expose-headers', EXPOSED);
    if (request.method !== 'OPTIONS') return;
    answerPreflight(reply, policy);
    return ANSWERED;
  };
}

/** A preflight is answered here and goes no further. */
function answerPreflight(reply: FastifyReply, policy: Policy): void {
  reply
    .code(204)
    .header('access-control-allow-methods', policy.methods)
    .header('access-control-allow-headers', policy.allowedHeaders)
    .header('access-control-max-age', String(PREFLIGHT_MAX_AGE))
    .send();
}
