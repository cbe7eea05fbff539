import type { FastifyRequest } from 'fastify';
import type { Database, Executor } from '../db/client.js';
import { type AuditEntry, recordAudit } from './audit.js';
import { AppError } from './errors.js';

/**
 * What every dashboard service function receives: the tenant first, the actor for the audit
 * trail, and the database. Services put `tenantId` in every WHERE.
 */
export interface ServiceCtx {
  db: Database;
  tenantId: string;
  actorId: string | null;
  ip: string | null;
  /** The request's time, from the injectable clock (tests move it). */
  now: Date;
}

export function ctxOf(request: FastifyRequest): ServiceCtx {
  const auth = request.auth;
  if (!auth) throw new AppError('MISSING_TENANT_ID');
  return {
    db: request.server.deps.database.db,
    tenantId: auth.tenantId,
    actorId: auth.userId,
    ip: request.ip,
    now: new Date(request.server.deps.clock()),
  };
}

/** Audit helper bound to the ctx's tenant, actor and IP. */
export const audit = (
  ctx: ServiceCtx,
  exec: Executor,
  entry: Omit<AuditEntry, 'tenantId' | 'actorId' | 'ipAddress'>,
): Promise<void> =>
  recordAudit(exec, { ...entry, tenantId: ctx.tenantId, actorId: ctx.actorId, ipAddress: ctx.ip });
