import type { Executor } from '../../db/client.js';
import { nearestArticles } from './embeddings.js';
import { reciprocalRankFusion } from './fusion.js';
import { findArticleTexts, type RankedArticle, rankArticlesByFullText } from './store/articles.js';

/**
 * Finds the knowledge-base articles that answer a question.
 *
 * Full text: the question's words become lexemes (English stemming, stop words dropped) OR-ed
 * into one tsquery, so an article needs not contain every word of a question phrased freely.
 * Each lexeme weighs its idf over the tenant's articles; candidates are ranked by the weighted
 * lexemes they contain (title counting most), and an article is relevant when it holds at
 * least MIN_COVERAGE of the question's weight.
 *
 * Hybrid, where the database has pgvector and the tenant's provider embeds: the question is
 * embedded too, the nearest current article embeddings are ranked by cosine similarity, and
 * the two rankings are fused by reciprocal rank fusion (k = 60). A vector hit is relevant when
 * its similarity reaches MIN_SIMILARITY. Without either, full text alone answers.
 */

/**
 * Relevance thresholds. Coverage is weighted by idf, so 0.2 means "a fifth of what is
 * distinctive in the question": low on purpose, leaning to answering. On the benchmark's
 * fixture it keeps recall@3 at its ranking's best while declining half of the off-topic
 * questions outright; for the rest the model, told to answer only from the articles, says it
 * does not know.
 */
export const MIN_COVERAGE = 0.2;
export const MIN_SIMILARITY = 0.5;
/** Candidates each ranking contributes before fusion. */
const CANDIDATES = 20;

export interface RetrievedArticle {
  id: string;
  title: string;
  content: string;
}

/**
 * Full-text candidates for free text, best first (empty when the text has no searchable word):
 * each lexeme weighs its idf over the tenant's articles, an article ranks by the weighted lexemes
 * it holds, title counting most (the query: store/articles.ts).
 */
export function fullTextCandidates(
  exec: Executor,
  tenantId: string,
  text: string,
  limit = CANDIDATES,
): Promise<RankedArticle[]> {
  return rankArticlesByFullText(exec, tenantId, text, limit);
}

export interface VectorSearch {
  model: string;
  /** Embeds the question (a provider call); a failure falls back to full text. */
  embed(text: string): Promise<number[]>;
}

export interface Retrieval {
  articles: RetrievedArticle[];
  method: 'fulltext' | 'hybrid';
}

/** The `limit` most relevant articles for `question`, best first; empty when none is relevant. */
export async function retrieveArticles(
  exec: Executor,
  tenantId: string,
  question: string,
  opts: { limit: number; vector: VectorSearch | null; onVectorError?: (err: unknown) => void },
): Promise<Retrieval> {
  const fullText = (await fullTextCandidates(exec, tenantId, question)).filter(
    (h) => h.coverage >= MIN_COVERAGE,
  );
  if (!opts.vector) return { articles: fullText.slice(0, opts.limit), method: 'fulltext' };

  let nearest: { id: string; similarity: number }[];
  try {
    const embedding = await opts.vector.embed(question);
    nearest = (await nearestArticles(exec, tenantId, opts.vector.model, embedding, CANDIDATES)).filter(
      (n) => n.similarity >= MIN_SIMILARITY,
    );
  } catch (err) {
    opts.onVectorError?.(err);
    return { articles: fullText.slice(0, opts.limit), method: 'fulltext' };
  }
  const fused = reciprocalRankFusion([fullText.map((h) => h.id), nearest.map((n) => n.id)]).slice(
    0,
    opts.limit,
  );
  const known = new Map(fullText.map((h) => [h.id, h as RetrievedArticle]));
  const missing = fused.map((f) => f.id).filter((id) => !known.has(id));
  if (missing.length > 0) {
    for (const row of await findArticleTexts(exec, tenantId, missing)) known.set(row.id, row);
  }
  return {
    articles: fused.flatMap((f) => (known.has(f.id) ? [known.get(f.id)!] : [])),
    method: 'hybrid',
  };
}
