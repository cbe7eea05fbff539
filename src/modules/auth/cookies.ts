import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../../platform/auth/cookies.js';

/** The refresh cookie only travels to the auth routes (refresh, logout), never to the rest of the API. */
const REFRESH_COOKIE_PATH = '/api/auth';

const base = (config: Config) => ({ httpOnly: true, sameSite: 'lax' as const, secure: config.cookieSecure });

export function setAuthCookies(
  reply: FastifyReply,
  config: Config,
  tokens: { accessToken: string; refreshToken: string },
): void {
  reply.setCookie(SESSION_COOKIE, tokens.accessToken, {
    ...base(config),
    path: '/',
    maxAge: config.accessTokenTtlSeconds,
  });
  reply.setCookie(REFRESH_COOKIE, tokens.refreshToken, {
    ...base(config),
    path: REFRESH_COOKIE_PATH,
    maxAge: config.refreshTokenTtlSeconds,
  });
}

export function clearAuthCookies(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, { ...base(config), path: '/' });
  reply.clearCookie(REFRESH_COOKIE, { ...base(config), path: REFRESH_COOKIE_PATH });
}
