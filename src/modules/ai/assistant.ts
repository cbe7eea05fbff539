import type { ModelMessage } from 'ai';
import { z } from 'zod';
import type { ConversationMessage } from '../../db/schema/index.js';
import type { AppDeps } from '../../deps.js';
import type { ServiceCtx } from '../../platform/context.js';
import { notFound, validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { withAi } from './access.js';
import { modelSchemaOf } from './model-schema.js';
import { ASSISTANT_SYSTEM, DONT_KNOW, questionPrompt } from './prompts.js';
import type { AiClient } from './provider-client.js';
import { retrieveArticles, type VectorSearch } from './retrieval.js';
import {
  appendConversationMessages,
  findConversation as findConversationRow,
  insertConversation,
  listConversationsPage,
} from './store/conversations.js';
import { hasEmbeddingsOfModel } from './store/embeddings.js';
import { hasVectorSupport } from './vector-support.js';

/**
 * The assistant: answers a question from the tenant's knowledge base, grounded in the articles
 * retrieval finds, with the articles it used as citations; stores the exchange in a
 * conversation and continues it when given its id.
 *
 * When no article is relevant it says it does not know without calling the provider (no
 * tokens spent on an empty context). A failed provider call stores nothing: the question can
 * be sent again.
 */

/** Articles given to the model per question, and how much of each. */
export const CONTEXT_ARTICLES = 4;
const MAX_ARTICLE_CHARS = 6_000;
/** Earlier messages of the conversation sent along (the latest ones). */
const HISTORY_MESSAGES = 10;
const MAX_HISTORY_CHARS = 2_000;
/** A conversation holds at most this many messages; then a new one is started. */
export const MAX_CONVERSATION_MESSAGES = 200;

const answerSchema = z.object({
  answer: z.string().trim().min(1).max(8_000),
  answered: z.boolean(),
  citedArticles: z.array(z.number().int()).max(20),
});

export interface QueryInput {
  message: string;
  conversationId?: string | undefined;
  context?: Record<string, unknown> | undefined;
}

export interface Citation {
  articleId: string;
  title: string;
}

export type AssistantDeps = Pick<AppDeps, 'config' | 'encryptor' | 'log' | 'database'>;

async function findConversation(ctx: ServiceCtx, id: string) {
  if (!isUuid(id)) return undefined;
  return findConversationRow(ctx.db, ctx.tenantId, id);
}

const conversationMissing = () => notFound('Conversation');

function historyMessages(messages: ConversationMessage[]): ModelMessage[] {
  return messages.slice(-HISTORY_MESSAGES).map((m) => ({
    role: m.role,
    content: m.content.slice(0, MAX_HISTORY_CHARS),
  }));
}

/** Vector search when the database, the provider and the tenant's embeddings allow it (else full text). */
async function vectorSearch(
  ctx: ServiceCtx,
  deps: AssistantDeps,
  client: AiClient,
): Promise<VectorSearch | null> {
  const model = client.embeddingModel;
  if (!model || !(await hasVectorSupport(deps.database))) return null;
  // No embedding of this model yet (just configured, or the job has not run): spare the call.
  if (!(await hasEmbeddingsOfModel(ctx.db, ctx.tenantId, model))) return null;
  return { model, embed: async (text) => (await client.embed([text]))[0]! };
}

export async function askAssistant(ctx: ServiceCtx, deps: AssistantDeps, input: QueryInput) {
  const existing = input.conversationId ? await findConversation(ctx, input.conversationId) : undefined;
  if (input.conversationId && !existing) throw conversationMissing();
  if (existing && existing.messages.length + 2 > MAX_CONVERSATION_MESSAGES) {
    throw validationError([
      {
        path: 'conversationId',
        message: `this conversation is full (${MAX_CONVERSATION_MESSAGES} messages): start a new one`,
      },
    ]);
  }

  const { response, citations } = await withAi(ctx, deps, async (client) => {
    const retrieval = await retrieveArticles(ctx.db, ctx.tenantId, input.message, {
      limit: CONTEXT_ARTICLES,
      vector: await vectorSearch(ctx, deps, client),
      onVectorError: (err) =>
        deps.log.warn(
          { tenantId: ctx.tenantId, code: (err as { code?: string }).code },
          'question embedding failed; full text only',
        ),
    });
    if (retrieval.articles.length === 0) return { response: DONT_KNOW, citations: [] as Citation[] };
    const answer = await client.generateObject({
      system: ASSISTANT_SYSTEM,
      messages: [
        ...historyMessages(existing?.messages ?? []),
        {
          role: 'user',
          content: questionPrompt(retrieval.articles, input.message, input.context, MAX_ARTICLE_CHARS),
        },
      ],
      schema: answerSchema,
      modelSchema: modelSchemaOf(answerSchema),
      name: 'answer',
      maxOutputTokens: 2_000,
    });
    // Only articles that were given count as citations, each once, in the model's order.
    const cited = answer.answered
      ? [...new Set(answer.citedArticles)].flatMap((n) => {
          const article = retrieval.articles[n - 1];
          return article ? [{ articleId: article.id, title: article.title }] : [];
        })
      : [];
    return { response: answer.answer, citations: cited };
  });

  const timestamp = ctx.now.toISOString();
  const added: ConversationMessage[] = [
    { role: 'user', content: input.message, timestamp },
    { role: 'assistant', content: response, timestamp, citations },
  ];
  const stored = existing
    ? await appendMessages(ctx, existing.id, added)
    : await startConversation(ctx, added);
  return { conversationId: stored.id, response, citations, messages: stored.messages };
}

function startConversation(ctx: ServiceCtx, messages: ConversationMessage[]) {
  return insertConversation(ctx.db, {
    id: newId(),
    tenantId: ctx.tenantId,
    startedBy: ctx.actorId,
    messages,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
}

/** Appends atomically (concurrent questions in one conversation both land, in commit order). */
async function appendMessages(ctx: ServiceCtx, id: string, messages: ConversationMessage[]) {
  const row = await appendConversationMessages(ctx.db, ctx.tenantId, id, messages, ctx.now);
  if (!row) throw conversationMissing();
  return row;
}

export function listConversations(ctx: ServiceCtx, page: PageRequest) {
  return listConversationsPage(ctx.db, ctx.tenantId, page);
}

export async function getConversation(ctx: ServiceCtx, id: string) {
  const row = await findConversation(ctx, id);
  if (!row) throw conversationMissing();
  return row;
}
