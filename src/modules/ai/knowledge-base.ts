import type { Executor } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { sameJson } from '../../platform/same-json.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import type { CreateArticleInput, ListArticlesQuery, UpdateArticleInput } from './schemas.js';
import {
  type Article,
  deleteArticleRow,
  findArticle as findArticleRow,
  insertArticle,
  listArticlesPage,
  updateArticleFields,
} from './store/articles.js';

/**
 * Knowledge-base articles: the help content the assistant answers from. Writes are audited
 * (KB_ARTICLE_CREATED/UPDATED/DELETED). Creating one needs the plan's `ai` feature; existing
 * articles stay readable and editable after a downgrade, as surveys do.
 *
 * Search is PostgreSQL full text: `search_vector` is a generated column (title weighted A,
 * category and tags B, body C) under a GIN index; the query is read with
 * `websearch_to_tsquery` (quoted phrases, `or`, `-exclude`) and results are ranked by
 * `ts_rank_cd`, then newest first.
 */

const ENTITY = 'kb_article';
const articleNotFound = () => notFound('Article');

async function findArticle(exec: Executor, tenantId: string, id: string, lock = false) {
  if (!isUuid(id)) return undefined;
  return findArticleRow(exec, tenantId, id, lock);
}

export async function getArticle(ctx: ServiceCtx, id: string): Promise<Article> {
  const row = await findArticle(ctx.db, ctx.tenantId, id);
  if (!row) throw articleNotFound();
  return row;
}

export function listArticles(ctx: ServiceCtx, query: ListArticlesQuery) {
  return listArticlesPage(ctx.db, ctx.tenantId, query);
}

export async function createArticle(ctx: ServiceCtx, input: CreateArticleInput): Promise<Article> {
  return ctx.db.transaction(async (tx) => {
    await assertFeatureEnabled(tx, ctx.tenantId, 'ai', ctx.now);
    const row = await insertArticle(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      title: input.title,
      content: input.content,
      category: input.category ?? null,
      tags: input.tags ?? [],
      metadata: input.metadata ?? {},
      createdAt: ctx.now,
      updatedAt: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'KB_ARTICLE_CREATED',
      entityType: ENTITY,
      entityId: row.id,
      metadata: { title: row.title },
    });
    return row;
  });
}

const EDITABLE = ['title', 'content', 'category', 'tags', 'metadata'] as const;

/** PATCH: only fields that differ are written and audited; no change answers the article as it is. */
export async function updateArticle(
  ctx: ServiceCtx,
  id: string,
  patch: UpdateArticleInput,
): Promise<Article> {
  return ctx.db.transaction(async (tx) => {
    const row = await findArticle(tx, ctx.tenantId, id, true);
    if (!row) throw articleNotFound();
    const changes = EDITABLE.filter((key) => patch[key] !== undefined && !sameJson(patch[key], row[key]));
    if (changes.length === 0) return row;
    const set = Object.fromEntries(changes.map((key) => [key, patch[key]]));
    const updated = await updateArticleFields(tx, ctx.tenantId, row.id, set, ctx.now);
    await audit(ctx, tx, {
      action: 'KB_ARTICLE_UPDATED',
      entityType: ENTITY,
      entityId: row.id,
      metadata: { changes },
    });
    return updated!;
  });
}

/** Hard delete (204); its embedding goes with it (foreign key). */
export async function deleteArticle(ctx: ServiceCtx, id: string): Promise<void> {
  if (!isUuid(id)) throw articleNotFound();
  await ctx.db.transaction(async (tx) => {
    const row = await deleteArticleRow(tx, ctx.tenantId, id);
    if (!row) throw articleNotFound();
    await audit(ctx, tx, {
      action: 'KB_ARTICLE_DELETED',
      entityType: ENTITY,
      entityId: row.id,
      metadata: { title: row.title },
    });
  });
}
