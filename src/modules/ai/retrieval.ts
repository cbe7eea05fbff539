import type { Executor } from '../../db/client.js';
import { rawQuery } from '../../db/raw.js';
import { nearestArticles } from './embeddings.js';
import { reciprocalRankFusion } from './fusion.js';

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

interface FullTextHit extends RetrievedArticle {
  coverage: number;
  rank: number;
}

/**
 * The ranking query. Each lexeme of the text becomes a tsquery of its own (quotes and
 * backslashes escaped for tsquery input); its weight is its inverse document frequency over the
 * tenant's articles (BM25's idf, counted through the GIN index), so a rare word ("webhook")
 * counts more than one every article has ("task"), and a word no article has counts fully
 * against coverage. An article scores the idf of each question lexeme it contains, times 1 in
 * its title, 0.8 in its category or tags, 0.6 in its body.
 */
const FULL_TEXT_SQL = String.raw`
  with q as (
    select distinct ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery as query
      from unnest(to_tsvector('english', $2))
  ),
  docs as (select count(*)::float8 as n from ai_kb_articles where tenant_id = $1),
  terms as (
    select q.query, ln(1 + (docs.n - df.n + 0.5) / (df.n + 0.5)) as idf
      from q cross join docs
     cross join lateral (
       select count(*)::float8 as n from ai_kb_articles a where a.tenant_id = $1 and a.search_vector @@ q.query
     ) df
  ),
  total as (select sum(idf) as idf, string_agg(query::text, ' | ')::tsquery as any_term from terms)
  select a.id, a.title, a.content,
         sum(case when a.search_vector @@ t.query then t.idf else 0 end) / max(total.idf) as coverage,
         sum(t.idf * case when ts_filter(a.search_vector, '{a}') @@ t.query then 1.0
                          when ts_filter(a.search_vector, '{b}') @@ t.query then 0.8
                          when a.search_vector @@ t.query then 0.6
                          else 0 end) as rank
    from ai_kb_articles a
   cross join total
   cross join terms t
   where a.tenant_id = $1 and total.any_term is not null and a.search_vector @@ total.any_term
   group by a.id, a.title, a.content
   order by rank desc, a.id
   limit $3`;

/** Full-text candidates for free text, best first (empty when the text has no searchable word). */
export async function fullTextCandidates(
  exec: Executor,
  tenantId: string,
  text: string,
  limit = CANDIDATES,
): Promise<FullTextHit[]> {
  const rows = await rawQuery<{ id: string; title: string; content: string; coverage: number; rank: number }>(
    exec,
    FULL_TEXT_SQL,
    [tenantId, text, limit],
  );
  return rows.map((r) => ({ ...r, coverage: Number(r.coverage), rank: Number(r.rank) }));
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
    const rows = await rawQuery<RetrievedArticle>(
      exec,
      `select id, title, content from ai_kb_articles where tenant_id = $1 and id = any($2::uuid[])`,
      [tenantId, missing],
    );
    for (const row of rows) known.set(row.id, row);
  }
  return {
    articles: fused.flatMap((f) => (known.has(f.id) ? [known.get(f.id)!] : [])),
    method: 'hybrid',
  };
}
