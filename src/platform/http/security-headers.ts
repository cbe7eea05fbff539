import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { EdgeStep } from './edge.js';

/**
 * Security headers, decided by helmet and configured for an API:
 * - `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`
 *   (nothing here is meant to be framed), `Referrer-Policy: no-referrer`, and a CSP that lets
 *   nothing load (`default-src 'none'`): a JSON answer rendered as a page can run nothing.
 * - HSTS only with `COOKIE_SECURE=true` (the deployment is HTTPS); a plain-HTTP one would be
 *   pinned to an HTTPS it does not serve.
 * - `Cache-Control: no-store` on every /api answer that sets no caching of its own: sign-ins,
 *   refreshes, API keys and invite links carry tokens, and the rest is tenant data. (The SDK
 *   config sets its own `private, max-age=60` with an ETag.)
 * - SDK routes (`/api/sdk/*`, `/sdk/*` assets) are loaded by customers' pages on other origins:
 *   `Cross-Origin-Resource-Policy: cross-origin` there, `same-origin` elsewhere; SDK API answers
 *   carry only the headers that matter to a fetch() of JSON (see `sdk` below).
 * - `/docs` (Swagger UI) gets the CSP it needs (its own scripts, styles and images).
 * - Every other path is the dashboard web app (modules/dashboard): its own scripts only, inline
 *   styles (the browser SDK's shadow-root stylesheets in the flow editor's preview), images from
 *   https (heatmap screenshots), same-origin framing for that preview and the video hosts a VIDEO
 *   step embeds; with `GOOGLE_CLIENT_ID`, Google Identity Services' script, frame, styles and calls.
 *
 * helmet builds its middleware on every call (≈25 µs a request through @fastify/helmet,
 * measured): the header sets are computed by helmet once, at startup, and copied onto each reply.
 */
export function securityHeadersStep(
  app: FastifyInstance,
  opts: { hsts: boolean; googleSignIn?: boolean },
): EdgeStep {
  // Google Identity Services (its script, button frame, styles and calls) when sign-in with Google is configured.
  const gsi = opts.googleSignIn ? ['https://accounts.google.com/gsi/'] : [];
  const base: HelmetOptions = {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: opts.hsts ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
  };
  const other = headersOf(base);
  const api = { ...other, 'cache-control': 'no-store' };
  const sdkAssets = headersOf({ ...base, crossOriginResourcePolicy: { policy: 'cross-origin' } });
  // SDK API answers are small JSON read by fetch() from customers' pages, at the highest rates the
  // service sees: only the headers that mean something for them (nosniff, a CSP that loads and
  // frames nothing, no referrer, cross-origin readable, HSTS when on). The page-oriented rest
  // (X-Frame-Options, COOP, Origin-Agent-Cluster, X-XSS-Protection, ...) would double the bytes of
  // a config answer.
  const sdk = {
    ...headersOf({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: base.strictTransportSecurity,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      crossOriginOpenerPolicy: false,
      originAgentCluster: false,
      xFrameOptions: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
    }),
    'cache-control': 'no-store',
  };
  const docs = headersOf({
    ...base,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        fontSrc: ["'self'", 'https:', 'data:'],
        frameAncestors: ["'none'"],
        imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
        objectSrc: ["'none'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", 'https:'],
      },
    },
  });

  const dashboard = headersOf({
    ...base,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        connectSrc: ["'self'", ...gsi],
        fontSrc: ["'self'", 'data:'],
        formAction: ["'self'"],
        frameAncestors: ["'self'"],
        frameSrc: ["'self'", 'https://www.youtube-nocookie.com', 'https://player.vimeo.com', ...gsi],
        imgSrc: ["'self'", 'data:', 'https:'],
        objectSrc: ["'none'"],
        scriptSrc: ["'self'", ...(opts.googleSignIn ? ['https://accounts.google.com/gsi/client'] : [])],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'", ...gsi],
      },
    },
    frameguard: { action: 'sameorigin' },
  });

  const headersFor = (url: string): Record<string, string> => {
    if (url.startsWith('/api/')) return url.startsWith('/api/sdk/') ? sdk : api;
    if (url.startsWith('/docs')) return docs;
    if (url.startsWith('/sdk/')) return sdkAssets;
    if (url === '/api' || url.startsWith('/api?')) return other;
    return dashboard;
  };
  app.decorate('securityHeadersFor', headersFor);
  return (request, reply) => {
    reply.headers(headersFor(request.url));
    return undefined;
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The security headers of a response to `url` (for replies made outside the hooks: routing errors). */
    securityHeadersFor(url: string): Record<string, string>;
  }
}

/** The headers helmet's middleware sets for `options`, captured once. */
function headersOf(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}
