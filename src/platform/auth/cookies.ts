import type { FastifyRequest } from 'fastify';

/** The names of the auth cookies: the access token (every route) and the refresh token (auth routes only). */
export const SESSION_COOKIE = 'session_token';
export const REFRESH_COOKIE = 'refresh_token';

/**
 * A cookie of the request, parsed on first use: the cookie plugin does not parse on every
 * request (`hook: false`), since the SDK hot path never reads cookies.
 */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  request.cookies ??= request.server.parseCookie(header);
  return request.cookies[name] || undefined;
}
