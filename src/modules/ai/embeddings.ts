import type { Executor } from '../../db/client.js';
import { rawQuery } from '../../db/raw.js';
import type { AiProviderName } from '../../db/schema/index.js';
import type { AppDeps } from '../../deps.js';
import { getTenantPlan } from '../pricing/index.js';
import { type AiConfigRow, decryptKey, recordAiTokens } from './access.js';
import { createAiClient } from './provider-client.js';
import { PROVIDERS } from './providers.js';
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

/** An article needs (re-)embedding: none yet, another model's, or one of older content. */
const STALE = `(e.article_id is null or e.model <> p.model or e.content_hash <> a.content_hash)`;

type PendingTenant = AiConfigRow & { embeddingModel: string };

async function pendingTenants(deps: EmbeddingDeps, now: Date, limit: number): Promise<PendingTenant[]> {
  const { providers, models } = embeddingModels();
  const rows = await deps.database.query<Record<string, unknown>>(
    `select c.id, c.tenant_id, c.provider, c.model, c.encrypted_key, p.model as embedding_model
       from ai_configs c
       join unnest($1::text[], $2::text[]) as p(provider, model) on p.provider = c.provider
      where c.is_enabled
        and (c.embeddings_retry_at is null or c.embeddings_retry_at <= $3)
        and exists (select 1 from ai_kb_articles a
                      left join ai_kb_embeddings e on e.article_id = a.id
                     where a.tenant_id = c.tenant_id and ${STALE})
      order by c.tenant_id
      limit $4`,
    [providers, models, now.toISOString(), limit],
  );
  return rows.map((r) => ({
    id: r.id as string,
    tenantId: r.tenant_id as string,
    provider: r.provider as AiProviderName,
    model: r.model as string | null,
    encryptedKey: r.encrypted_key as string,
    embeddingModel: r.embedding_model as string,
  })) as PendingTenant[];
}

async function staleArticles(deps: EmbeddingDeps, tenant: PendingTenant) {
  return deps.database.query<{ id: string; title: string; content: string; content_hash: string }>(
    `select a.id, a.title, a.content, a.content_hash
       from ai_kb_articles a
       cross join (select $2::text as model) p
       left join ai_kb_embeddings e on e.article_id = a.id
      where a.tenant_id = $1 and ${STALE}
      order by a.created_at, a.id
      limit $3`,
    [tenant.tenantId, tenant.embeddingModel, BATCH_SIZE],
  );
}

/** Upserts embeddings; an article deleted meanwhile is skipped (the join finds it no more). */
async function storeEmbeddings(
  deps: EmbeddingDeps,
  tenant: PendingTenant,
  rows: { id: string; hash: string; vector: number[] }[],
) {
  await deps.database.query(
    `insert into ai_kb_embeddings (article_id, tenant_id, model, content_hash, embedding, created_at)
     select u.id, a.tenant_id, $2, u.hash, u.embedding::vector, now()
       from unnest($3::uuid[], $4::text[], $5::text[]) as u(id, hash, embedding)
       join ai_kb_articles a on a.id = u.id and a.tenant_id = $1
     on conflict (article_id) do update
       set model = excluded.model, content_hash = excluded.content_hash,
           embedding = excluded.embedding, created_at = excluded.created_at`,
    [
      tenant.tenantId,
      tenant.embeddingModel,
      rows.map((r) => r.id),
      rows.map((r) => r.hash),
      rows.map((r) => vectorLiteral(r.vector)),
    ],
  );
}

/** One batch of one tenant; false when the provider failed (the tenant is paused). */
async function embedBatch(deps: EmbeddingDeps, tenant: PendingTenant, now: Date): Promise<number> {
  const articles = await staleArticles(deps, tenant);
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
    await storeEmbeddings(
      deps,
      tenant,
      articles.map((a, i) => ({ id: a.id, hash: a.content_hash, vector: vectors[i]! })),
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
    const tenants = await pendingTenants(deps, now, maxBatches - batches);
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

async function pause(deps: EmbeddingDeps, tenant: PendingTenant, now: Date) {
  await deps.database.query(
    `update ai_configs set embeddings_retry_at = $3 where tenant_id = $1 and id = $2`,
    [tenant.tenantId, tenant.id, new Date(now.getTime() + PAUSE_AFTER_FAILURE_MS).toISOString()],
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
  const rows = await rawQuery<{ id: string; similarity: number | string }>(
    exec,
    `select e.article_id as id, 1 - (e.embedding <=> $3::vector) as similarity
       from ai_kb_embeddings e
       join ai_kb_articles a on a.id = e.article_id and a.tenant_id = e.tenant_id
      where e.tenant_id = $1 and e.model = $2 and e.content_hash = a.content_hash
        and vector_dims(e.embedding) = vector_dims($3::vector)
      order by e.embedding <=> $3::vector, e.article_id
      limit $4`,
    [tenantId, model, vectorLiteral(vector), limit],
  );
  return rows.map((r) => ({ id: r.id, similarity: Number(r.similarity) }));
}
