import { embeddingText, vectorLiteral } from '../../src/modules/ai/embeddings.js';
import {
  type RetrievedArticle,
  retrieveArticles,
  type VectorSearch,
} from '../../src/modules/ai/retrieval.js';
import { hasVectorSupport } from '../../src/modules/ai/vector-support.js';
import { newId } from '../../src/platform/ids.js';
import type { TestDatabase } from './database.js';

/**
 * The knowledge base's retrieval in process, for `bench/ai-retrieval.ts`: a tenant with articles,
 * their embeddings written as the background job writes them (by any embedder), and the
 * retrieval the assistant runs (full text, fused with vector search when a `VectorSearch` is given).
 */

export interface SeedArticle {
  slug: string;
  title: string;
  content: string;
  category: string | null;
  tags: string[];
}

export type { RetrievedArticle, VectorSearch };

/** A tenant with `articles`; answers its id and the slug of each article id. */
export async function seedKnowledgeBase(db: TestDatabase, articles: readonly SeedArticle[]) {
  const tenantId = newId();
  await db.handle.query(`insert into tenants (id, name, slug) values ($1, 'Bench', $2)`, [
    tenantId,
    `bench-${tenantId}`,
  ]);
  const slugOf = new Map<string, string>();
  for (const a of articles) {
    const id = newId();
    slugOf.set(id, a.slug);
    await db.handle.query(
      `insert into ai_kb_articles (id, tenant_id, title, content, category, tags) values ($1, $2, $3, $4, $5, $6)`,
      [id, tenantId, a.title, a.content, a.category, a.tags],
    );
  }
  return { tenantId, slugOf };
}

/** The text the embedding job embeds for an article. */
export const articleEmbeddingText = embeddingText;

/** Embeds every article of the tenant as the background job would (same text, current content hash). */
export async function embedArticles(
  db: TestDatabase,
  tenantId: string,
  model: string,
  embed: (text: string) => number[],
): Promise<VectorSearch> {
  const rows = await db.handle.query<{ id: string; title: string; content: string; content_hash: string }>(
    'select id, title, content, content_hash from ai_kb_articles where tenant_id = $1',
    [tenantId],
  );
  for (const row of rows) {
    await db.handle.query(
      `insert into ai_kb_embeddings (article_id, tenant_id, model, content_hash, embedding)
       values ($1, $2, $3, $4, $5::vector)`,
      [row.id, tenantId, model, row.content_hash, vectorLiteral(embed(embeddingText(row)))],
    );
  }
  return { model, embed: async (text) => embed(text) };
}

export async function retrieve(
  db: TestDatabase,
  tenantId: string,
  question: string,
  opts: { limit: number; vector: VectorSearch | null },
): Promise<RetrievedArticle[]> {
  return (await retrieveArticles(db.handle.db, tenantId, question, opts)).articles;
}

export const databaseHasVectors = (db: TestDatabase) => hasVectorSupport(db.handle);
