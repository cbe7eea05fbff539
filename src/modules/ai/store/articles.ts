import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { rawQuery } from '../../../db/raw.js';
import { aiKbArticles } from '../../../db/schema/index.js';
import { listPage, type PageRequest } from '../../../platform/pagination.js';

/**
 * The queries of the knowledge-base articles (`ai_kb_articles`).
 *
 * Search is PostgreSQL full text: `search_vector` is a generated column (title weighted A,
 * category and tags B, body C) under a GIN index.
 */

const columns = {
  id: aiKbArticles.id,
  tenantId: aiKbArticles.tenantId,
  title: aiKbArticles.title,
  content: aiKbArticles.content,
  category: aiKbArticles.category,
  tags: aiKbArticles.tags,
  metadata: aiKbArticles.metadata,
  createdAt: aiKbArticles.createdAt,
  updatedAt: aiKbArticles.updatedAt,
};

export type Article = { [K in keyof typeof columns]: (typeof aiKbArticles.$inferSelect)[K] };

const ofTenant = (tenantId: string, id: string) =>
  and(eq(aiKbArticles.tenantId, tenantId), eq(aiKbArticles.id, id));

/** The tenant's article `id` (a uuid); `lock` takes it FOR UPDATE. */
export async function findArticle(
  exec: Executor,
  tenantId: string,
  id: string,
  lock = false,
): Promise<Article | undefined> {
  const query = exec.select(columns).from(aiKbArticles).where(ofTenant(tenantId, id)).limit(1);
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export interface ArticleFilter extends PageRequest {
  /** Matched case-insensitively. */
  category?: string | undefined;
  /** Read with `websearch_to_tsquery` (quoted phrases, `or`, `-exclude`). */
  search?: string | undefined;
}

/**
 * The tenant's articles, newest first; with `search`, only those matching it, ranked by
 * `ts_rank_cd`, then newest first.
 */
export function listArticlesPage(exec: Executor, tenantId: string, filter: ArticleFilter) {
  const where: SQL[] = [eq(aiKbArticles.tenantId, tenantId)];
  if (filter.category) where.push(sql`lower(${aiKbArticles.category}) = lower(${filter.category})`);
  const newestFirst = [desc(aiKbArticles.createdAt), desc(aiKbArticles.id)];
  let order = newestFirst;
  if (filter.search) {
    const tsquery = sql`websearch_to_tsquery('english', ${filter.search})`;
    where.push(sql`${aiKbArticles.searchVector} @@ ${tsquery}`);
    order = [desc(sql`ts_rank_cd(${aiKbArticles.searchVector}, ${tsquery})`), ...newestFirst];
  }
  return listPage(
    exec
      .select(columns)
      .from(aiKbArticles)
      .where(and(...where))
      .orderBy(...order),
    exec
      .select({ n: count() })
      .from(aiKbArticles)
      .where(and(...where)),
    filter,
  );
}

export async function insertArticle(
  exec: Executor,
  article: Omit<typeof aiKbArticles.$inferInsert, 'searchVector' | 'contentHash'>,
): Promise<Article> {
  const [row] = await exec.insert(aiKbArticles).values(article).returning(columns);
  return row!;
}

export async function updateArticleFields(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<Pick<Article, 'title' | 'content' | 'category' | 'tags' | 'metadata'>>,
  now: Date,
): Promise<Article | undefined> {
  const [row] = await exec
    .update(aiKbArticles)
    .set({ ...set, updatedAt: now })
    .where(ofTenant(tenantId, id))
    .returning(columns);
  return row;
}

/** Deletes the tenant's article `id` (its embedding goes with it: foreign key). */
export async function deleteArticleRow(exec: Executor, tenantId: string, id: string) {
  const [row] = await exec
    .delete(aiKbArticles)
    .where(ofTenant(tenantId, id))
    .returning({ id: aiKbArticles.id, title: aiKbArticles.title });
  return row;
}

/** The title and body of the tenant's articles among `ids` (in no order). */
export function findArticleTexts(exec: Executor, tenantId: string, ids: string[]) {
  return exec
    .select({ id: aiKbArticles.id, title: aiKbArticles.title, content: aiKbArticles.content })
    .from(aiKbArticles)
    .where(and(eq(aiKbArticles.tenantId, tenantId), inArray(aiKbArticles.id, ids)));
}

/** The category and metadata of the tenant's articles among `ids` (in no order). */
export function findArticleDetails(exec: Executor, tenantId: string, ids: string[]) {
  return exec
    .select({ id: aiKbArticles.id, category: aiKbArticles.category, metadata: aiKbArticles.metadata })
    .from(aiKbArticles)
    .where(and(eq(aiKbArticles.tenantId, tenantId), inArray(aiKbArticles.id, ids)));
}

/**
 * The ranking query (raw: a CTE per lexeme that the query builder does not express). Each lexeme
 * of the text becomes a tsquery of its own (quotes and backslashes escaped for tsquery input);
 * its weight is its inverse document frequency over the tenant's articles (BM25's idf, counted
 * through the GIN index), so a rare word ("webhook") counts more than one every article has
 * ("task"), and a word no article has counts fully against coverage. An article scores the idf
 * of each question lexeme it contains, times 1 in its title, 0.8 in its category or tags, 0.6 in
 * its body.
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

export type RankedArticle = Pick<Article, 'id' | 'title' | 'content'> & { coverage: number; rank: number };

/**
 * The tenant's articles holding any lexeme of `text`, best first, with the share of the text's
 * weight each holds (`coverage`, 0..1) and its `rank` (empty when the text has no searchable word).
 */
export async function rankArticlesByFullText(
  exec: Executor,
  tenantId: string,
  text: string,
  limit: number,
): Promise<RankedArticle[]> {
  const rows = await rawQuery<{ id: string; title: string; content: string; coverage: number; rank: number }>(
    exec,
    FULL_TEXT_SQL,
    [tenantId, text, limit],
  );
  return rows.map((r) => ({ ...r, coverage: Number(r.coverage), rank: Number(r.rank) }));
}
