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
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import {
  articleEmbeddingText,
  databaseHasVectors,
  embedArticles,
  retrieve,
  seedKnowledgeBase,
  type VectorSearch,
} from '../test/helpers/kb-retrieval.js';
import { KB_ARTICLES, KB_OFF_TOPIC, KB_QUESTIONS } from './fixtures/kb-articles.js';
import { fitLsa } from './lsa-embedding.js';

const K = 3;
const MODEL = 'bench-lsa';

async function measure(
  db: TestDatabase,
  tenantId: string,
  slugOf: Map<string, string>,
  vector: VectorSearch | null,
) {
  const ask = (question: string) => retrieve(db, tenantId, question, { limit: K, vector });
  let hits = 0;
  let top1 = 0;
  let reciprocal = 0;
  let empty = 0;
  const misses: string[] = [];
  const started = performance.now();
  for (const q of KB_QUESTIONS) {
    const articles = await ask(q.question);
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
  for (const question of KB_OFF_TOPIC) if ((await ask(question)).length === 0) declined++;
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
    const { tenantId, slugOf } = await seedKnowledgeBase(db, KB_ARTICLES);
    console.log(`knowledge-base retrieval (${db.url ? 'PostgreSQL' : 'PGlite'})`);
    console.log(`  articles: ${KB_ARTICLES.length}, questions: ${KB_QUESTIONS.length}`);
    report('full text alone', await measure(db, tenantId, slugOf, null));
    if (await databaseHasVectors(db)) {
      const lsa = fitLsa(KB_ARTICLES.map((a) => articleEmbeddingText(a)));
      const vector: VectorSearch = await embedArticles(db, tenantId, MODEL, (text) => lsa.embed(text));
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
