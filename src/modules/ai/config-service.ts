import type { AiProviderName } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import type { AiConfigRow, AiDeps } from './access.js';
import { maskKey } from './mask.js';
import { verifyProviderKey } from './provider-client.js';
import { deleteAiConfigRow, findAiConfig, insertAiConfig, updateAiConfigRow } from './store/configs.js';

/**
 * The tenant's AI provider configuration. The key is verified with the provider before
 * anything is stored, kept encrypted (AES-256-GCM with ENCRYPTION_KEY), and only its masked
 * form is ever answered. Audit entries name the provider and model, never the key.
 */

export const toAiConfigRecord = (row: AiConfigRow) => ({
  id: row.id,
  tenantId: row.tenantId,
  provider: row.provider,
  model: row.model,
  maskedKey: row.maskedKey,
  isEnabled: row.isEnabled,
  lastVerifiedAt: row.lastVerifiedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});
export type AiConfigRecord = ReturnType<typeof toAiConfigRecord>;

export async function getAiConfig(ctx: ServiceCtx): Promise<AiConfigRecord | null> {
  const row = await findAiConfig(ctx.db, ctx.tenantId);
  return row ? toAiConfigRecord(row) : null;
}

export interface SaveAiConfigInput {
  provider: AiProviderName;
  apiKey: string;
  model?: string | undefined;
}

/**
 * Creates or replaces the configuration. The key is verified first (outside any transaction:
 * it is a network call); a refused key stores nothing. A replaced configuration keeps its
 * on/off state; a new one starts enabled.
 */
export async function saveAiConfig(
  ctx: ServiceCtx,
  deps: AiDeps,
  input: SaveAiConfigInput,
): Promise<{ created: boolean; record: AiConfigRecord }> {
  await assertFeatureEnabled(ctx.db, ctx.tenantId, 'ai', ctx.now);
  await verifyProviderKey({
    provider: input.provider,
    apiKey: input.apiKey,
    ai: deps.config.ai,
    log: deps.log,
  });
  const values = {
    provider: input.provider,
    model: input.model ?? null,
    encryptedKey: deps.encryptor.encrypt(input.apiKey),
    maskedKey: maskKey(input.apiKey),
    lastVerifiedAt: ctx.now,
    embeddingsRetryAt: null,
    updatedAt: ctx.now,
  };
  return ctx.db.transaction(async (tx) => {
    const existing = await findAiConfig(tx, ctx.tenantId);
    const row = existing
      ? await updateAiConfigRow(tx, ctx.tenantId, existing.id, values)
      : await insertAiConfig(
          tx,
          { id: newId(), tenantId: ctx.tenantId, isEnabled: true, createdAt: ctx.now },
          values,
        );
    await audit(ctx, tx, {
      action: existing ? 'AI_CONFIG_UPDATED' : 'AI_CONFIG_CREATED',
      entityType: 'ai_config',
      entityId: row!.id,
      metadata: {
        provider: row!.provider,
        model: row!.model,
        keyChanged: true,
        ...(existing && existing.provider !== row!.provider ? { previousProvider: existing.provider } : {}),
      },
    });
    return { created: !existing, record: toAiConfigRecord(row!) };
  });
}

/** Turns AI on or off, keeping the configuration. Without one: 400 AI_NOT_CONFIGURED. */
export async function toggleAiConfig(ctx: ServiceCtx, enabled: boolean): Promise<AiConfigRecord> {
  return ctx.db.transaction(async (tx) => {
    const row = await findAiConfig(tx, ctx.tenantId);
    if (!row)
      throw new AppError('AI_NOT_CONFIGURED', 'No AI provider is configured: POST /api/ai-config first');
    if (row.isEnabled === enabled) return toAiConfigRecord(row);
    if (enabled) await assertFeatureEnabled(tx, ctx.tenantId, 'ai', ctx.now);
    const updated = await updateAiConfigRow(tx, ctx.tenantId, row.id, {
      isEnabled: enabled,
      updatedAt: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'AI_CONFIG_UPDATED',
      entityType: 'ai_config',
      entityId: row.id,
      metadata: { isEnabled: enabled },
    });
    return toAiConfigRecord(updated!);
  });
}

/** Removes the configuration and its encrypted key. Nothing configured: 404. */
export async function deleteAiConfig(ctx: ServiceCtx): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const row = await deleteAiConfigRow(tx, ctx.tenantId);
    if (!row) throw notFound('AI configuration');
    await audit(ctx, tx, {
      action: 'AI_CONFIG_DELETED',
      entityType: 'ai_config',
      entityId: row.id,
      metadata: { provider: row.provider },
    });
  });
}
