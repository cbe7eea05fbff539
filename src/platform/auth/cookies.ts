import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

/** The names of the auth cookies: the access token (every route) and the refresh token (auth routes only). */
export const SESSION_COOKIE = 'session_token';
export const REFRESH_COOKIE = 'refresh_token';

/**
 * A cookie of the request, parsed where it is read. No cookie plugin runs: its hooks (a parser
 * per request, a writer per response) cost every request, the SDK hot path's included, which
 * never reads or sets a cookie; the auth module writes its cookies itself (modules/auth/cookies.ts).
 */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header)[name] || undefined;
}
