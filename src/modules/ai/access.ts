import type { Executor } from '../../db/client.js';
import type { AiProviderName } from '../../db/schema/index.js';
import type { AppDeps } from '../../deps.js';
import type { ServiceCtx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { countUsage, decide, loadSubscription } from '../pricing/index.js';
import { type AiClient, createAiClient } from './provider-client.js';
import { type AiConfigRow, findAiConfig, insertTokenUsage } from './store/configs.js';

/** What the AI services need from the app: provider settings, the key decryptor, the log. */
export type AiDeps = Pick<AppDeps, 'config' | 'encryptor' | 'log'>;

export type { AiConfigRow };

/** The stored key in clear, for a provider call; a key that no longer decrypts is refused. */
export function decryptKey(deps: AiDeps, row: Pick<AiConfigRow, 'tenantId' | 'encryptedKey'>): string {
  try {
    return deps.encryptor.decrypt(row.encryptedKey);
  } catch {
    deps.log.error(
      { tenantId: row.tenantId },
      'stored AI key does not decrypt (was ENCRYPTION_KEY changed?)',
    );
    throw new AppError('AI_KEY_INVALID', 'The stored AI key cannot be read: save the key again');
  }
}

export interface AiAccess {
  config: AiConfigRow;
  provider: AiProviderName;
}

/**
 * Every AI use answers, in this order: 403 PLAN_FEATURE_UNAVAILABLE without the plan's `ai`
 * feature; 400 AI_NOT_CONFIGURED without a provider; 403 AI_DISABLED when toggled off; 402
 * INSUFFICIENT_AI_TOKENS once the period's token allowance (`aiTokens`) is used up (only for
 * uses that spend tokens: `spendsTokens: false` skips that check).
 */
export async function assertAiUsable(
  exec: Executor,
  tenantId: string,
  now: Date,
  { spendsTokens = true }: { spendsTokens?: boolean } = {},
): Promise<AiConfigRow> {
  const sub = await loadSubscription(exec, tenantId, { now });
  const feature = decide(sub.plan, 'ai', null);
  if (!feature.allowed) {
    throw new AppError('PLAN_FEATURE_UNAVAILABLE', feature.reason!, { feature: 'ai', plan: sub.plan.name });
  }
  const config = await findAiConfig(exec, tenantId);
  if (!config)
    throw new AppError('AI_NOT_CONFIGURED', 'No AI provider is configured: POST /api/ai-config first');
  if (!config.isEnabled) throw new AppError('AI_DISABLED', 'AI features are turned off for this workspace');
  const limit = sub.plan.limits.aiTokens;
  if (spendsTokens && limit !== null) {
    const used = await countUsage(exec, tenantId, 'aiTokens', {
      start: sub.currentPeriodStart,
      end: sub.currentPeriodEnd,
      now,
    });
    if (used >= limit) {
      throw new AppError(
        'INSUFFICIENT_AI_TOKENS',
        `The ${sub.plan.name} plan includes ${limit} AI tokens a period; ${used} are used`,
        { used, limit, periodEnd: sub.currentPeriodEnd.toISOString() },
      );
    }
  }
  return config;
}

/** Tokens a provider call spent, counted against the tenant's allowance of the period. */
export async function recordAiTokens(
  exec: Executor,
  tenantId: string,
  tokens: number,
  at: Date,
): Promise<void> {
  if (!(tokens > 0)) return;
  await insertTokenUsage(exec, { id: newId(), tenantId, tokens: Math.round(tokens), createdAt: at });
}

/**
 * Runs `work` with a client of the tenant's provider, after the checks of `assertAiUsable`.
 * The tokens the provider reports are recorded whether the work succeeds or not (they were
 * spent); the allowance is checked before, so concurrent requests may overshoot it a little.
 */
export async function withAi<T>(
  ctx: ServiceCtx,
  deps: AiDeps,
  work: (client: AiClient, config: AiConfigRow) => Promise<T>,
): Promise<T> {
  const config = await assertAiUsable(ctx.db, ctx.tenantId, ctx.now);
  const client = createAiClient({
    provider: config.provider,
    model: config.model,
    apiKey: decryptKey(deps, config),
    ai: deps.config.ai,
    log: deps.log,
  });
  try {
    return await work(client, config);
  } finally {
    await recordAiTokens(ctx.db, ctx.tenantId, client.tokensUsed, ctx.now).catch((err) =>
      deps.log.error({ err, tenantId: ctx.tenantId }, 'could not record AI token usage'),
    );
  }
}
