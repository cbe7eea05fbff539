import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Role } from '../../db/schema/index.js';
import { safeEqual, sha256 } from '../crypto.js';
import { AppError } from '../errors.js';
import { addRouteHooks } from '../http/route-hooks.js';
import type { RateScope } from '../rate-limit.js';
import type { SdkAuth } from './api-key-auth.js';
import { readCookie, SESSION_COOKIE } from './cookies.js';
import { findSession } from './sessions.js';

/**
 * Every route under /api declares who may call it in `config.auth`; this file turns that
 * declaration into hooks, in one place. A route without a policy fails at startup.
 *
 *   config: { auth: requireRole('EDITOR') }      dashboard, JWT session, at least EDITOR
 *   config: { auth: API_KEY }                     SDK, API key, limited per key
 *   config: { auth: publicRoute('auth') }         no auth, counted in the `auth` and `global` rate scopes
 *   config: { auth: publicRoute('none') }         no auth, not rate limited (health)
 *   config: { auth: platformAdmin('write') }      platform admin token
 */
export type AuthPolicy =
  | { kind: 'public'; rateScope: 'global' | 'auth' | 'refresh' | 'none' }
  | { kind: 'session'; role: Role; rateScope?: 'global' | 'auth' | 'refresh' }
  | { kind: 'apiKey' }
  | { kind: 'platformAdmin'; scope: 'read' | 'write' | 'critical' };

/** A member's role, for modules (they import no table declarations). */
export type { Role };
export const ROLE_RANK: Record<Role, number> = { VIEWER: 0, EDITOR: 1, ADMIN: 2, OWNER: 3 };

export const requireRole = (role: Role, rateScope?: 'global' | 'auth' | 'refresh'): AuthPolicy =>
  rateScope ? { kind: 'session', role, rateScope } : { kind: 'session', role };
export const publicRoute = (rateScope: 'global' | 'auth' | 'refresh' | 'none' = 'global'): AuthPolicy => ({
  kind: 'public',
  rateScope,
});
export const API_KEY: AuthPolicy = { kind: 'apiKey' };
export const platformAdmin = (scope: 'read' | 'write' | 'critical'): AuthPolicy => ({
  kind: 'platformAdmin',
  scope,
});

export interface SessionAuth {
  userId: string;
  tenantId: string;
  sessionId: string;
  memberId: string;
  role: Role;
}

export interface RoutePolicy {
  method: string;
  url: string;
  policy: AuthPolicy;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
  }
  interface FastifyInstance {
    /** Every /api route with its declared policy (the security suite walks it). */
    routePolicies: RoutePolicy[];
  }
  interface FastifyRequest {
    auth: SessionAuth | null;
    sdk: SdkAuth | null;
  }
}

const ADMIN_SCOPE: Record<'read' | 'write' | 'critical', RateScope> = {
  read: 'adminRead',
  write: 'adminWrite',
  critical: 'adminCritical',
};

export function installGuard(app: FastifyInstance): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('sdk', null);
  const policies: RoutePolicy[] = [];
  app.decorate('routePolicies', policies);
  app.addHook('onRoute', (route) => {
    const policy = route.config?.auth;
    const url = route.url ?? route.path ?? '';
    if (!policy) {
      if (url.startsWith('/api'))
        throw new Error(`route ${route.method} ${url} declares no config.auth policy`);
      return;
    }
    for (const method of [route.method].flat()) if (method !== 'HEAD') policies.push({ method, url, policy });
    attach(route, policy);
  });
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

function attach(route: RouteOptions, policy: AuthPolicy): void {
  switch (policy.kind) {
    case 'public':
      if (policy.rateScope !== 'none')
        addRouteHooks(route, 'onRequest', limitByIp(policy.rateScope), 'first');
      return;
    case 'session':
      addRouteHooks(
        route,
        'onRequest',
        [limitByIp(policy.rateScope ?? 'global'), authenticateSession, checkRole(policy.role)],
        'first',
      );
      return;
    case 'apiKey':
      // After body parsing, so `_apiKey` in a beacon body is seen; before validation, so it is stripped.
      addRouteHooks(route, 'preValidation', authenticateApiKey, 'first');
      return;
    case 'platformAdmin':
      addRouteHooks(route, 'onRequest', authenticatePlatformAdmin(ADMIN_SCOPE[policy.scope]), 'first');
      return;
  }
}

/**
 * Per-IP limits. The global scope covers all routes (spec: "Global, all routes"), so a route in
 * the auth or refresh scope counts in both; the headers show the tighter of the two.
 */
const limitByIp = (scope: 'global' | 'auth' | 'refresh'): Hook => {
  const scopes: RateScope[] = scope === 'global' ? ['global'] : [scope, 'global'];
  return async (request, reply) => {
    await request.server.deps.rateLimiter.consumeAll(scopes, request.ip, reply);
  };
};

export function readSessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim() || undefined;
  return readCookie(request, SESSION_COOKIE);
}

const authenticateSession: Hook = async (request) => {
  const token = readSessionToken(request);
  if (!token) throw new AppError('AUTH_NO_TOKEN');
  const { tokens, database } = request.server.deps;
  const claims = await tokens.verifyAccess(token);
  const row = await findSession(database.db, claims.sessionId);
  // A revoked session, or one whose membership has ended, no longer authenticates.
  if (
    !row ||
    row.userId !== claims.userId ||
    row.tenantId !== claims.tenantId ||
    row.revokedAt ||
    !row.memberId ||
    !row.role
  )
    throw new AppError('AUTH_TOKEN_REVOKED');
  request.auth = { ...claims, memberId: row.memberId, role: row.role };
};

const checkRole =
  (required: Role): Hook =>
  async (request) => {
    const role = request.auth?.role;
    if (!role || ROLE_RANK[role] < ROLE_RANK[required]) {
      throw new AppError('INSUFFICIENT_ROLE', `This action needs the ${required} role or higher`);
    }
  };

/** Key from `X-API-Key`, then body `_apiKey` (stripped), then query `apiKey`. `Authorization` is ignored. */
export function readApiKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const body = request.body as Record<string, unknown> | null | undefined;
  let fromBody: unknown;
  if (body && typeof body === 'object' && '_apiKey' in body) {
    fromBody = body._apiKey;
    delete body._apiKey;
  }
  if (typeof header === 'string' && header) return header;
  if (typeof fromBody === 'string' && fromBody) return fromBody;
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query.apiKey === 'string' && query.apiKey) return query.apiKey;
  return undefined;
}

/** The key, then its rate limit (one hook: the SDK hot path runs no more hooks than it needs). */
const authenticateApiKey: Hook = async (request, reply) => {
  const query = request.query as Record<string, unknown> | undefined;
  const key = readApiKey(request);
  if (query && 'apiKey' in query) delete query.apiKey;
  try {
    request.sdk = await request.server.deps.apiKeys.verify(key);
  } catch (err) {
    // Failed attempts count against the caller's IP (global scope), so keys cannot be guessed
    // at will; a valid key is limited per key instead.
    await request.server.deps.rateLimiter.consume('global', request.ip, reply);
    throw err;
  }
  await request.server.deps.rateLimiter.consume('sdk', request.sdk.apiKeyId, reply);
};

const authenticatePlatformAdmin =
  (scope: RateScope): Hook =>
  async (request, reply) => {
    const expected = request.server.deps.config.platformAdminToken;
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!token) throw new AppError('AUTH_NO_TOKEN');
    if (!expected || !safeEqual(sha256(token), sha256(expected))) {
      // Wrong tokens spend the caller IP's critical-scope budget: no unlimited guessing.
      await request.server.deps.rateLimiter.consume('adminCritical', `ip:${request.ip}`, reply);
      throw new AppError('AUTH_INVALID_TOKEN');
    }
    await request.server.deps.rateLimiter.consume(scope, sha256(token), reply);
  };
