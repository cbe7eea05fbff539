import type { Executor } from '../../../db/client.js';
import { rawQuery } from '../../../db/raw.js';
import type { AiProviderName } from '../../../db/schema/index.js';
import type { AiConfigRow } from './configs.js';

/**
 * The queries of the article embeddings (`ai_kb_embeddings`). Raw SQL: the table and pgvector's
 * operators exist only where the extension could be installed (migration 0036), so the table is
 * kept out of the drizzle schema (vector-support.ts, AI_CONDITIONAL_SCHEMA).
 */

/** Whether this database has the embeddings table and the pgvector extension. */
export async function hasEmbeddingsTable(exec: Executor): Promise<boolean> {
  const [row] = await rawQuery<{ present: boolean }>(
    exec,
    `select to_regclass('ai_kb_embeddings') is not null
        and exists (select 1 from pg_extension where extname = 'vector') as present`,
  );
  return row?.present === true;
}

/** Whether the tenant has any embedding of `model`. */
export async function hasEmbeddingsOfModel(exec: Executor, tenantId: string, model: string) {
  const [any] = await rawQuery<{ present: boolean }>(
    exec,
    'select exists (select 1 from ai_kb_embeddings where tenant_id = $1 and model = $2) as present',
    [tenantId, model],
  );
  return any?.present === true;
}

/** An article needs (re-)embedding: none yet, another model's, or one of older content. */
const STALE = `(e.article_id is null or e.model <> p.model or e.content_hash <> a.content_hash)`;

/** A tenant's configuration with the embedding model of its provider. */
export type EmbeddingTenant = Pick<AiConfigRow, 'id' | 'tenantId' | 'provider' | 'model' | 'encryptedKey'> & {
  embeddingModel: string;
};

/**
 * Enabled configurations (not paused at `now`) of the `providers` (each embedding with the
 * `models` at the same position) whose tenant has an article to (re-)embed, by tenant.
 */
export async function findTenantsWithStaleArticles(
  exec: Executor,
  embedding: { providers: AiProviderName[]; models: string[] },
  now: Date,
  limit: number,
): Promise<EmbeddingTenant[]> {
  const rows = await rawQuery<Record<string, unknown>>(
    exec,
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
    [embedding.providers, embedding.models, now.toISOString(), limit],
  );
  return rows.map((r) => ({
    id: r.id as string,
    tenantId: r.tenant_id as string,
    provider: r.provider as AiProviderName,
    model: r.model as string | null,
    encryptedKey: r.encrypted_key as string,
    embeddingModel: r.embedding_model as string,
  }));
}

/** Up to `limit` of the tenant's articles without a current embedding of `model`, oldest first. */
export function findStaleArticles(exec: Executor, tenantId: string, model: string, limit: number) {
  return rawQuery<{ id: string; title: string; content: string; content_hash: string }>(
    exec,
    `select a.id, a.title, a.content, a.content_hash
       from ai_kb_articles a
       cross join (select $2::text as model) p
       left join ai_kb_embeddings e on e.article_id = a.id
      where a.tenant_id = $1 and ${STALE}
      order by a.created_at, a.id
      limit $3`,
    [tenantId, model, limit],
  );
}

/**
 * Upserts embeddings (`vector`: pgvector's text form); an article deleted meanwhile is skipped
 * (the join finds it no more).
 */
export async function upsertEmbeddings(
  exec: Executor,
  tenantId: string,
  model: string,
  rows: { id: string; hash: string; vector: string }[],
): Promise<void> {
  await rawQuery(
    exec,
    `insert into ai_kb_embeddings (article_id, tenant_id, model, content_hash, embedding, created_at)
     select u.id, a.tenant_id, $2, u.hash, u.embedding::vector, now()
       from unnest($3::uuid[], $4::text[], $5::text[]) as u(id, hash, embedding)
       join ai_kb_articles a on a.id = u.id and a.tenant_id = $1
     on conflict (article_id) do update
       set model = excluded.model, content_hash = excluded.content_hash,
           embedding = excluded.embedding, created_at = excluded.created_at`,
    [tenantId, model, rows.map((r) => r.id), rows.map((r) => r.hash), rows.map((r) => r.vector)],
  );
}

/**
 * The tenant's articles nearest to `vector` (pgvector's text form) by cosine distance, among
 * embeddings of `model` that are current (same content hash): exact search over one tenant's
 * articles.
 */
export async function findNearestArticles(
  exec: Executor,
  tenantId: string,
  model: string,
  vector: string,
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
    [tenantId, model, vector, limit],
  );
  return rows.map((r) => ({ id: r.id, similarity: Number(r.similarity) }));
}
