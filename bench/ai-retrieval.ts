/**
 * Retrieval benchmark of the knowledge base: a fixture help center (bench/fixtures) of 50+
 * articles and 30+ questions written for it, each answered by a known article. Prints recall@3
 * of full-text retrieval alone (the path every database has), the goal being ≥ 0.9, with
 * recall@1, MRR and the questions it misses.
 *
 *   npx tsx bench/ai-retrieval.ts                     # embedded database (PGlite)
 *   DATABASE_URL=postgres://... npx tsx bench/ai-retrieval.ts   # a fresh database on that server
 */
import { retrieveArticles } from '../src/modules/ai/retrieval.js';
import { newId } from '../src/platform/ids.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { KB_ARTICLES, KB_OFF_TOPIC, KB_QUESTIONS } from './fixtures/kb-articles.js';

const K = 3;

async function main() {
  const db = await createTestDatabase();
  try {
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
    const slugOf = new Map([...idOf].map(([slug, id]) => [id, slug]));
    let hits = 0;
    let top1 = 0;
    let reciprocal = 0;
    let empty = 0;
    const misses: string[] = [];
    const started = performance.now();
    for (const q of KB_QUESTIONS) {
      const { articles } = await retrieveArticles(db.handle.db, tenantId, q.question, {
        limit: K,
        vector: null,
      });
      const slugs = articles.map((a) => slugOf.get(a.id)!);
      const rank = slugs.findIndex((s) => q.expected.includes(s));
      if (articles.length === 0) empty++;
      if (rank >= 0) {
        hits++;
        reciprocal += 1 / (rank + 1);
        if (rank === 0) top1++;
      } else {
        misses.push(`  - "${q.question}" → expected ${q.expected.join(' or ')}, got [${slugs.join(', ')}]`);
      }
    }
    const elapsed = performance.now() - started;
    let declined = 0;
    const answeredOffTopic: string[] = [];
    for (const question of KB_OFF_TOPIC) {
      const { articles } = await retrieveArticles(db.handle.db, tenantId, question, {
        limit: K,
        vector: null,
      });
      if (articles.length === 0) declined++;
      else answeredOffTopic.push(`  - "${question}" → [${articles.map((a) => slugOf.get(a.id)).join(', ')}]`);
    }
    const n = KB_QUESTIONS.length;
    console.log(`knowledge-base retrieval, full text alone (${db.url ? 'PostgreSQL' : 'PGlite'})`);
    console.log(`  articles: ${KB_ARTICLES.length}, questions: ${n}`);
    console.log(`  recall@${K}: ${(hits / n).toFixed(3)} (${hits}/${n}; goal ≥ 0.9)`);
    console.log(`  recall@1: ${(top1 / n).toFixed(3)}, MRR@${K}: ${(reciprocal / n).toFixed(3)}`);
    console.log(`  questions with no relevant article: ${empty}`);
    console.log(`  mean time per question: ${(elapsed / n).toFixed(1)} ms`);
    if (misses.length > 0) console.log(`  missed:\n${misses.join('\n')}`);
    console.log(
      `  off-topic questions with nothing relevant ("I don't know"): ${declined}/${KB_OFF_TOPIC.length}`,
    );
    if (answeredOffTopic.length > 0) console.log(answeredOffTopic.join('\n'));
  } finally {
    await db.close();
  }
}

await main();
