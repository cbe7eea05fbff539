import type { Executor } from '../../db/client.js';
import type { AiProviderName } from '../../db/schema/index.js';
import type { AppDeps } from '../../deps.js';
import { getTenantPlan } from '../pricing/index.js';
import { decryptKey, recordAiTokens } from './access.js';
import { createAiClient } from './provider-client.js';
import { PROVIDERS } from './providers.js';
import { pauseEmbeddingsUntil } from './store/configs.js';
import {
  type EmbeddingTenant,
  findNearestArticles,
  findStaleArticles,
  findTenantsWithStaleArticles,
  upsertEmbeddings,
} from './store/embeddings.js';
import { hasVectorSupport } from './vector-support.js';

/**
 * Article embeddings, computed in the background (never on the request path): a job finds the
 * articles of tenants whose provider offers embeddings (OpenAI, Gemini) that have no embedding
 * for the current model and content (`content_hash`, a generated column, changes with the
 * title or body), embeds them in batches and upserts them. Writes wake it; it also runs on an
 * interval, so other instances' writes are picked up.
 *
 * Two instances may embed the same article at once: the upsert makes the last write win with
 * identical data, so the cost is a duplicate provider call, not a wrong row. A provider
 * failure (refused key, outage) pauses the tenant's embedding for a few minutes
 * (`embeddings_retry_at`) instead of failing again at every run. The tokens spent count
 * against the tenant's allowance like any other call; the allowance does not stop the job.
 */

export const AI_EMBEDDINGS_JOB = 'ai-embeddings';

/** Articles per provider call. */
const BATCH_SIZE = 32;
/** Enough of an article for its embedding (providers cap inputs near 8k tokens). */
const MAX_EMBEDDED_CHARS = 8_000;
const PAUSE_AFTER_FAILURE_MS = 5 * 60_000;

export type EmbeddingDeps = Pick<AppDeps, 'config' | 'encryptor' | 'log' | 'database' | 'clock'>;

export const embeddingText = (article: { title: string; content: string }) =>
  `${article.title}\n\n${article.content}`.slice(0, MAX_EMBEDDED_CHARS);

/** pgvector's text form; a non-finite component (never expected) is written as 0. */
export const vectorLiteral = (values: readonly number[]) =>
  `[${values.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;

/** The providers that embed, with the model each uses. */
function embeddingModels(): { providers: AiProviderName[]; models: string[] } {
  const pairs = (Object.entries(PROVIDERS) as [AiProviderName, (typeof PROVIDERS)[AiProviderName]][]).filter(
    ([, def]) => def.embeddingModel !== null,
  );
  return { providers: pairs.map(([name]) => name), models: pairs.map(([, def]) => def.embeddingModel!) };
}

/** One batch of one tenant; false when the provider failed (the tenant is paused). */
async function embedBatch(deps: EmbeddingDeps, tenant: EmbeddingTenant, now: Date): Promise<number> {
  const articles = await findStaleArticles(
    deps.database.db,
    tenant.tenantId,
    tenant.embeddingModel,
    BATCH_SIZE,
  );
  if (articles.length === 0) return 0;
  const client = createAiClient({
    provider: tenant.provider,
    model: tenant.model,
    apiKey: decryptKey(deps, tenant),
    ai: deps.config.ai,
    log: deps.log,
  });
  try {
    const vectors = await client.embed(articles.map((a) => embeddingText(a)));
    await upsertEmbeddings(
      deps.database.db,
      tenant.tenantId,
      tenant.embeddingModel,
      articles.map((a, i) => ({ id: a.id, hash: a.content_hash, vector: vectorLiteral(vectors[i]!) })),
    );
    return articles.length;
  } finally {
    await recordAiTokens(deps.database.db, tenant.tenantId, client.tokensUsed, now);
  }
}

/**
 * Embeds what is pending, a batch per tenant at a time, at most `maxBatches` batches a run.
 * Nothing happens where the database has no pgvector. Returns the number of articles embedded.
 */
export async function embedPendingArticles(
  deps: EmbeddingDeps,
  opts: { maxBatches?: number } = {},
): Promise<number> {
  if (!(await hasVectorSupport(deps.database))) return 0;
  const maxBatches = opts.maxBatches ?? 20;
  let batches = 0;
  let embedded = 0;
  while (batches < maxBatches) {
    const now = new Date(deps.clock());
    const tenants = await findTenantsWithStaleArticles(
      deps.database.db,
      embeddingModels(),
      now,
      maxBatches - batches,
    );
    if (tenants.length === 0) break;
    for (const tenant of tenants) {
      batches++;
      const plan = await getTenantPlan(deps.database.db, tenant.tenantId, now);
      if (!plan.features.ai) {
        await pause(deps, tenant, now);
        continue;
      }
      try {
        embedded += await embedBatch(deps, tenant, now);
      } catch (err) {
        deps.log.warn(
          { tenantId: tenant.tenantId, code: (err as { code?: string }).code },
          'embedding knowledge-base articles failed; pausing the tenant',
        );
        await pause(deps, tenant, now);
      }
    }
  }
  return embedded;
}

async function pause(deps: EmbeddingDeps, tenant: EmbeddingTenant, now: Date) {
  await pauseEmbeddingsUntil(
    deps.database.db,
    tenant.tenantId,
    tenant.id,
    new Date(now.getTime() + PAUSE_AFTER_FAILURE_MS),
  );
}

/**
 * The tenant's articles nearest to `vector` by cosine distance, among embeddings of `model`
 * that are current (same content hash): exact search over one tenant's articles.
 */
export async function nearestArticles(
  exec: Executor,
  tenantId: string,
  model: string,
  vector: readonly number[],
  limit: number,
): Promise<{ id: string; similarity: number }[]> {
  return findNearestArticles(exec, tenantId, model, vectorLiteral(vector), limit);
}
