/**
 * Retrieval benchmark of the knowledge base: a fixture help center (bench/fixtures) of 50+
 * articles and 30+ questions written for it, each answered by a known article. Prints recall@3
 * (the goal being ≥ 0.9), recall@1, MRR and the questions missed, for full-text retrieval alone
 * (the path every database has) and, where the database has pgvector, for hybrid retrieval: full
 * text fused with vector search by reciprocal rank fusion, exactly as the assistant retrieves.
 * The vectors come from a local stand-in for an embedding provider (bench/lsa-embedding.ts,
 * latent semantic analysis fitted on the fixture's articles: no network, no model weights).
 *
 *   npx tsx bench/ai-retrieval.ts                     # embedded database (PGlite + pgvector)
 *   DATABASE_URL=postgres://... npx tsx bench/ai-retrieval.ts   # a fresh database on that server
 */
import { embeddingText, vectorLiteral } from '../src/modules/ai/embeddings.js';
import { type RetrievedArticle, retrieveArticles, type VectorSearch } from '../src/modules/ai/retrieval.js';
import { hasVectorSupport } from '../src/modules/ai/vector-support.js';
import { newId } from '../src/platform/ids.js';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { KB_ARTICLES, KB_OFF_TOPIC, KB_QUESTIONS } from './fixtures/kb-articles.js';
import { fitLsa } from './lsa-embedding.js';

const K = 3;
const MODEL = 'bench-lsa';

async function seed(db: TestDatabase) {
  const tenantId = newId();
  await db.handle.query(`insert into tenants (id, name, slug) values ($1, 'Bench', $2)`, [
    tenantId,
    `bench-${tenantId}`,
  ]);
  const idOf = new Map<string, string>();
  for (const a of KB_ARTICLES) {
    const id = newId();
    idOf.set(a.slug, id);
    await db.handle.query(
      `insert into ai_kb_articles (id, tenant_id, title, content, category, tags) values ($1, $2, $3, $4, $5, $6)`,
      [id, tenantId, a.title, a.content, a.category, a.tags],
    );
  }
  return { tenantId, slugOf: new Map([...idOf].map(([slug, id]) => [id, slug])) };
}

/** Embeds every article as the background job would (same text, current content hash). */
async function embedArticles(db: TestDatabase, tenantId: string): Promise<VectorSearch> {
  const lsa = fitLsa(KB_ARTICLES.map((a) => embeddingText(a)));
  const rows = await db.handle.query<{ id: string; title: string; content: string; content_hash: string }>(
    'select id, title, content, content_hash from ai_kb_articles where tenant_id = $1',
    [tenantId],
  );
  for (const row of rows) {
    await db.handle.query(
      `insert into ai_kb_embeddings (article_id, tenant_id, model, content_hash, embedding)
       values ($1, $2, $3, $4, $5::vector)`,
      [row.id, tenantId, MODEL, row.content_hash, vectorLiteral(lsa.embed(embeddingText(row)))],
    );
  }
  return { model: MODEL, embed: async (text) => lsa.embed(text) };
}

async function measure(
  db: TestDatabase,
  tenantId: string,
  slugOf: Map<string, string>,
  vector: VectorSearch | null,
) {
  const retrieve = async (question: string): Promise<RetrievedArticle[]> =>
    (await retrieveArticles(db.handle.db, tenantId, question, { limit: K, vector })).articles;
  let hits = 0;
  let top1 = 0;
  let reciprocal = 0;
  let empty = 0;
  const misses: string[] = [];
  const started = performance.now();
  for (const q of KB_QUESTIONS) {
    const articles = await retrieve(q.question);
    const slugs = articles.map((a) => slugOf.get(a.id)!);
    const rank = slugs.findIndex((s) => q.expected.includes(s));
    if (articles.length === 0) empty++;
    if (rank >= 0) {
      hits++;
      reciprocal += 1 / (rank + 1);
      if (rank === 0) top1++;
    } else {
      misses.push(`    - "${q.question}" → expected ${q.expected.join(' or ')}, got [${slugs.join(', ')}]`);
    }
  }
  const elapsed = performance.now() - started;
  let declined = 0;
  for (const question of KB_OFF_TOPIC) if ((await retrieve(question)).length === 0) declined++;
  const n = KB_QUESTIONS.length;
  return { hits, n, top1, reciprocal, empty, misses, elapsed, declined };
}

function report(label: string, r: Awaited<ReturnType<typeof measure>>) {
  console.log(`  ${label}`);
  console.log(`    recall@${K}: ${(r.hits / r.n).toFixed(3)} (${r.hits}/${r.n}; goal ≥ 0.9)`);
  console.log(`    recall@1: ${(r.top1 / r.n).toFixed(3)}, MRR@${K}: ${(r.reciprocal / r.n).toFixed(3)}`);
  console.log(`    questions with no relevant article: ${r.empty}`);
  console.log(`    mean time per question: ${(r.elapsed / r.n).toFixed(1)} ms`);
  if (r.misses.length > 0) console.log(`    missed:\n${r.misses.join('\n')}`);
  console.log(
    `    off-topic questions with nothing relevant ("I don't know"): ${r.declined}/${KB_OFF_TOPIC.length}`,
  );
}

async function main() {
  const db = await createTestDatabase();
  try {
    const { tenantId, slugOf } = await seed(db);
    console.log(`knowledge-base retrieval (${db.url ? 'PostgreSQL' : 'PGlite'})`);
    console.log(`  articles: ${KB_ARTICLES.length}, questions: ${KB_QUESTIONS.length}`);
    report('full text alone', await measure(db, tenantId, slugOf, null));
    if (await hasVectorSupport(db.handle)) {
      const vector = await embedArticles(db, tenantId);
      report(
        `hybrid: full text + vector (${MODEL}), reciprocal rank fusion`,
        await measure(db, tenantId, slugOf, vector),
      );
    } else {
      console.log('  hybrid: not measured, this database has no pgvector');
    }
  } finally {
    await db.close();
  }
}

await main();
