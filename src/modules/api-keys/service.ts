import { API_KEY_PREFIX } from '../../platform/auth/api-key-auth.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { randomHex, sha256 } from '../../platform/crypto.js';
import { notFound, validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { assertPlanAllows } from '../pricing/index.js';
import { findApiKey, insertApiKey, listApiKeysPage, markApiKeyRevoked } from './store.js';

/** `keyPrefix` is the first 12 characters of the key (DECISIONS §4): `wfx_` and 8 hex. */
const PREFIX_LENGTH = 12;

const keyNotFound = () => notFound('API key');

export async function createApiKey(ctx: ServiceCtx, input: { name: string; expiresAt?: Date | undefined }) {
  if (input.expiresAt && input.expiresAt.getTime() <= ctx.now.getTime()) {
    throw validationError(
      [{ path: 'expiresAt', message: 'must be in the future' }],
      'expiresAt must be in the future',
    );
  }
  const key = `${API_KEY_PREFIX}${randomHex(32)}`;
  return ctx.db.transaction(async (tx) => {
    await assertPlanAllows(tx, ctx.tenantId, 'apiKeys', ctx.now);
    const row = await insertApiKey(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      name: input.name,
      keyHash: sha256(key),
      keyPrefix: key.slice(0, PREFIX_LENGTH),
      createdBy: ctx.actorId,
      expiresAt: input.expiresAt ?? null,
    });
    await audit(ctx, tx, {
      action: 'API_KEY_CREATED',
      entityType: 'api_key',
      entityId: row.id,
      metadata: {
        name: row.name,
        keyPrefix: row.keyPrefix,
        expiresAt: row.expiresAt?.toISOString() ?? null,
      },
    });
    return { ...row, key };
  });
}

export async function listApiKeys(ctx: ServiceCtx, query: PageRequest) {
  return listApiKeysPage(ctx.db, ctx.tenantId, query);
}

export async function getApiKey(ctx: ServiceCtx, id: string) {
  if (!isUuid(id)) throw keyNotFound();
  const row = await findApiKey(ctx.db, ctx.tenantId, id);
  if (!row) throw keyNotFound();
  return row;
}

/**
 * DELETE is a hard delete as far as the API goes (DECISIONS §1): a revoked key is never listed
 * nor read again; its row stays (the audit trail and lastUsedAt refer to it).
 * Permanent: the key stops working here before the answer and within a moment everywhere (the
 * database announces the revocation to every instance's key cache; see platform/change-feed.ts);
 * from then on the API answers 404 for it (revoking again included).
 */
export async function revokeApiKey(ctx: ServiceCtx, id: string) {
  if (!isUuid(id)) throw keyNotFound();
  await ctx.db.transaction(async (tx) => {
    const row = await markApiKeyRevoked(tx, ctx.tenantId, id, ctx.now);
    if (!row) throw keyNotFound();
    await audit(ctx, tx, {
      action: 'API_KEY_REVOKED',
      entityType: 'api_key',
      entityId: id,
      metadata: { name: row.name, keyPrefix: row.keyPrefix },
    });
  });
}
