import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { aiConfigs, aiTokenUsage } from '../../../db/schema/index.js';

/** The queries of the tenants' AI configurations (`ai_configs`) and token usage (`ai_token_usage`). */

export type AiConfigRow = typeof aiConfigs.$inferSelect;

export async function findAiConfig(exec: Executor, tenantId: string): Promise<AiConfigRow | undefined> {
  const [row] = await exec.select().from(aiConfigs).where(eq(aiConfigs.tenantId, tenantId)).limit(1);
  return row;
}

type ConfigValues = Omit<typeof aiConfigs.$inferInsert, 'id' | 'tenantId' | 'isEnabled' | 'createdAt'>;

/** Rewrites the tenant's configuration `id` with `values`. */
export async function updateAiConfigRow(
  exec: Executor,
  tenantId: string,
  id: string,
  values: Partial<ConfigValues & Pick<AiConfigRow, 'isEnabled'>>,
): Promise<AiConfigRow | undefined> {
  const [row] = await exec
    .update(aiConfigs)
    .set(values)
    .where(and(eq(aiConfigs.tenantId, tenantId), eq(aiConfigs.id, id)))
    .returning();
  return row;
}

/**
 * Inserts the tenant's configuration (`identity` and `values`); one inserted meanwhile by a
 * concurrent request gets `values` instead.
 */
export async function insertAiConfig(
  exec: Executor,
  identity: Pick<AiConfigRow, 'id' | 'tenantId' | 'isEnabled' | 'createdAt'>,
  values: ConfigValues,
): Promise<AiConfigRow> {
  const [row] = await exec
    .insert(aiConfigs)
    .values({ ...identity, ...values })
    .onConflictDoUpdate({ target: aiConfigs.tenantId, set: values })
    .returning();
  return row!;
}

export async function deleteAiConfigRow(exec: Executor, tenantId: string): Promise<AiConfigRow | undefined> {
  const [row] = await exec.delete(aiConfigs).where(eq(aiConfigs.tenantId, tenantId)).returning();
  return row;
}

/** Pauses the embedding of the tenant's articles until `until` (after a provider failure). */
export async function pauseEmbeddingsUntil(exec: Executor, tenantId: string, id: string, until: Date) {
  await exec
    .update(aiConfigs)
    .set({ embeddingsRetryAt: until })
    .where(and(eq(aiConfigs.tenantId, tenantId), eq(aiConfigs.id, id)));
}

export async function insertTokenUsage(
  exec: Executor,
  usage: typeof aiTokenUsage.$inferInsert,
): Promise<void> {
  await exec.insert(aiTokenUsage).values(usage);
}
