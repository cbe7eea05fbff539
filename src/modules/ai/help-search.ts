import type { Executor } from '../../db/client.js';
import { assertAiUsable } from './access.js';
import { fullTextCandidates, MIN_COVERAGE } from './retrieval.js';
import { findArticleDetails } from './store/articles.js';

/** A knowledge-base hit as the browser SDK's self-help widget shows it. */
export interface HelpHit {
  id: string;
  title: string;
  excerpt: string;
  category: string | null;
  url: string | null;
}

const EXCERPT_CHARS = 200;

/** The article's opening text, markdown markers and runs of whitespace flattened, cut at a word. */
export function excerptOf(content: string, max = EXCERPT_CHARS): string {
  const flat = content
    .replace(/[#>*_`~|]+/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

/** `metadata.url` when it is an http(s) address (articles imported from a help center carry it). */
function urlOf(metadata: unknown): string | null {
  const url = (metadata as { url?: unknown } | null)?.url;
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
}

/**
 * Self-help search from customers' pages: the same relevance as the assistant's full-text
 * retrieval (no provider call: a public page typing into a search box must not spend the
 * tenant's tokens or reach their provider). Needs the plan's `ai` feature and a configured,
 * enabled provider, like every AI use; tokens are not checked since none are spent.
 */
export async function searchHelpArticles(
  exec: Executor,
  tenantId: string,
  query: string,
  limit: number,
  now: Date,
): Promise<HelpHit[]> {
  await assertAiUsable(exec, tenantId, now, { spendsTokens: false });
  // Relevance is judged on the whole candidate list (ranked by weight, not by coverage), then cut.
  const hits = (await fullTextCandidates(exec, tenantId, query))
    .filter((h) => h.coverage >= MIN_COVERAGE)
    .slice(0, limit);
  if (hits.length === 0) return [];
  const details = await findArticleDetails(
    exec,
    tenantId,
    hits.map((h) => h.id),
  );
  const byId = new Map(details.map((d) => [d.id, d]));
  return hits.map((h) => ({
    id: h.id,
    title: h.title,
    excerpt: excerptOf(h.content),
    category: byId.get(h.id)?.category ?? null,
    url: urlOf(byId.get(h.id)?.metadata),
  }));
}
