/**
 * Retrieval benchmark of the knowledge base: a fixture help center (bench/fixtures) of 50+
 * articles and 30+ questions written for it, each answered by a known article. Prints recall@3
 * of full-text retrieval alone (the path every database has), the goal being ≥ 0.9, with
 * recall@1, MRR and the questions it misses. Through HTTP: the articles are created with
 * `POST /api/ai/knowledge-base` and each question asked of `GET /api/sdk/knowledge-base` (the
 * self-help search, which ranks and cuts as the assistant's full-text retrieval does, without a
 * provider call); the tenant's provider is the test helpers' fake one, only to be configured.
 *
 *   npx tsx bench/ai-retrieval.ts                     # embedded database (PGlite)
 *   DATABASE_URL=postgres://... npx tsx bench/ai-retrieval.ts   # a fresh database on that server
 */
import { testConfig } from '../test/helpers/config.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { FAKE_VALID_KEY, startFakeProvider } from '../test/helpers/fake-ai-provider.js';
import { type InProcessApp, startInProcessApp } from '../test/helpers/in-process.js';
import { KB_ARTICLES, KB_OFF_TOPIC, KB_QUESTIONS } from './fixtures/kb-articles.js';

const K = 3;

async function call(t: InProcessApp, method: 'GET' | 'POST', url: string, payload?: object) {
  const headers = url.startsWith('/api/sdk/') ? { 'x-api-key': t.apiKey } : t.ownerHeaders;
  const res = await t.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** The articles the self-help search finds for `question`, best first, at most K. */
async function retrieve(t: InProcessApp, question: string): Promise<{ id: string }[]> {
  return call(t, 'GET', `/api/sdk/knowledge-base?limit=${K}&q=${encodeURIComponent(question)}`);
}

async function main() {
  const fake = await startFakeProvider();
  const db = await createTestDatabase();
  const t = await startInProcessApp({ db, config: { ai: { ...testConfig().ai, ...fake.urls } } });
  try {
    await call(t, 'POST', '/api/ai-config', { provider: 'OPENAI', apiKey: FAKE_VALID_KEY });
    const idOf = new Map<string, string>();
    for (const a of KB_ARTICLES) {
      const { slug, ...article } = a;
      idOf.set(slug, (await call(t, 'POST', '/api/ai/knowledge-base', article)).id);
    }
    const slugOf = new Map([...idOf].map(([slug, id]) => [id, slug]));
    let hits = 0;
    let top1 = 0;
    let reciprocal = 0;
    let empty = 0;
    const misses: string[] = [];
    const started = performance.now();
    for (const q of KB_QUESTIONS) {
      const articles = await retrieve(t, q.question);
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
      const articles = await retrieve(t, question);
      if (articles.length === 0) declined++;
      else answeredOffTopic.push(`  - "${question}" → [${articles.map((a) => slugOf.get(a.id)).join(', ')}]`);
    }
    const n = KB_QUESTIONS.length;
    console.log(`knowledge-base retrieval, full text alone (${db.url ? 'PostgreSQL' : 'PGlite'})`);
    console.log(`  articles: ${KB_ARTICLES.length}, questions: ${n}`);
    console.log(`  recall@${K}: ${(hits / n).toFixed(3)} (${hits}/${n}; goal ≥ 0.9)`);
    console.log(`  recall@1: ${(top1 / n).toFixed(3)}, MRR@${K}: ${(reciprocal / n).toFixed(3)}`);
    console.log(`  questions with no relevant article: ${empty}`);
    console.log(`  mean time per question (through inject): ${(elapsed / n).toFixed(1)} ms`);
    if (misses.length > 0) console.log(`  missed:\n${misses.join('\n')}`);
    console.log(
      `  off-topic questions with nothing relevant ("I don't know"): ${declined}/${KB_OFF_TOPIC.length}`,
    );
    if (answeredOffTopic.length > 0) console.log(answeredOffTopic.join('\n'));
  } finally {
    await t.close();
    await db.close();
    await fake.close();
  }
}

await main();
