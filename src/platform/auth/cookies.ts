import { parseCookie, type SetCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';

/** The names of the auth cookies: the access token (every route) and the refresh token (auth routes only). */
export const SESSION_COOKIE = 'session_token';
export const REFRESH_COOKIE = 'refresh_token';

/** The refresh cookie only travels to the auth routes (refresh, logout), never to the rest of the API. */
const REFRESH_COOKIE_PATH = '/api/auth';

/**
 * A cookie of the request, parsed where it is read. No cookie plugin runs: its hooks (a parser
 * per request, a writer per response) cost every request, the SDK hot path's included, which
 * never reads or sets a cookie; the auth routes write theirs with `setAuthCookies`.
 */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header)[name] || undefined;
}

const base = (config: Config) => ({ httpOnly: true, sameSite: 'lax' as const, secure: config.cookieSecure });

/** Adds a `Set-Cookie` header (Fastify keeps each one: several cookies are several headers). */
function setCookie(reply: FastifyReply, cookie: SetCookie): void {
  reply.header('set-cookie', stringifySetCookie(cookie));
}

export function setAuthCookies(
  reply: FastifyReply,
  config: Config,
  tokens: { accessToken: string; refreshToken: string },
): void {
  setCookie(reply, {
    name: SESSION_COOKIE,
    value: tokens.accessToken,
    ...base(config),
    path: '/',
    maxAge: config.accessTokenTtlSeconds,
  });
  setCookie(reply, {
    name: REFRESH_COOKIE,
    value: tokens.refreshToken,
    ...base(config),
    path: REFRESH_COOKIE_PATH,
    maxAge: config.refreshTokenTtlSeconds,
  });
}

/** Expires both auth cookies in the browser (an empty value, already expired). */
export function clearAuthCookies(reply: FastifyReply, config: Config): void {
  const expired = { value: '', expires: new Date(0), maxAge: 0 };
  setCookie(reply, { name: SESSION_COOKIE, ...expired, ...base(config), path: '/' });
  setCookie(reply, { name: REFRESH_COOKIE, ...expired, ...base(config), path: REFRESH_COOKIE_PATH });
}
