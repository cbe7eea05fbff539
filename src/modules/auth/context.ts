import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';

/**
 * What the auth services receive. Most auth routes are public (no tenant yet), so this is not
 * the tenant-scoped `ServiceCtx`: the tenant is decided by the credentials being checked.
 */
export interface AuthCtx {
  deps: AppDeps;
  ip: string | null;
  userAgent: string | null;
}

export function authCtxOf(request: FastifyRequest): AuthCtx {
  const agent = request.headers['user-agent'];
  return {
    deps: request.server.deps,
    ip: request.ip,
    userAgent: typeof agent === 'string' && agent ? agent.slice(0, 512) : null,
  };
}

/** "Now" from the injectable clock, so tests can move time across expiries. */
export const nowOf = (ctx: AuthCtx): Date => new Date(ctx.deps.clock());
