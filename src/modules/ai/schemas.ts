import { z } from 'zod';
import { AI_PROVIDERS } from '../../db/schema/index.js';
import { dataOf, jsonObject, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';
import { FLOW_STEP_TYPES } from '../flows/index.js';
import { GENERATION_TYPES } from './generation.js';
import { TRANSLATABLE_TYPES } from './machine-translation.js';

// ---- configuration ----------------------------------------------------------------------------

export const aiConfigRecord = z.object({
  id: uuid,
  tenantId: uuid,
  provider: z.enum(AI_PROVIDERS),
  model: z.string().nullable().describe("null: the provider's default model"),
  maskedKey: z.string().describe('e.g. sk-...abcd; the key itself is never returned'),
  isEnabled: z.boolean(),
  lastVerifiedAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const saveAiConfigBody = z.object({
  provider: z.enum(AI_PROVIDERS),
  apiKey: z
    .string()
    .trim()
    .min(8)
    .max(500)
    // Sent in an HTTP header: provider keys are visible ASCII; anything else could never work.
    .regex(/^[\x21-\x7e]+$/, 'an API key is visible ASCII characters without spaces')
    .describe('verified with the provider, then stored encrypted'),
  model: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a model id such as gpt-4.1-mini')
    .optional()
    .describe("a model of the provider; default: the provider's default model"),
});

export const toggleAiConfigBody = z.object({ enabled: z.boolean() });

export const aiConfigResponse = dataOf(aiConfigRecord);
export const aiConfigOrNull = dataOf(aiConfigRecord.nullable());

// ---- knowledge base ---------------------------------------------------------------------------

const tag = z.string().trim().min(1).max(50);

export const MAX_ARTICLE_LENGTH = 100_000;

export const createArticleBody = z.object({
  title: z.string().trim().min(1).max(255),
  content: z.string().trim().min(1).max(MAX_ARTICLE_LENGTH).describe('markdown'),
  category: z.string().trim().min(1).max(100).nullable().optional(),
  tags: z
    .array(tag)
    .max(50)
    .optional()
    .transform((tags) => (tags ? [...new Set(tags)] : tags))
    .describe('duplicates are dropped'),
  metadata: jsonObject.optional(),
});
export type CreateArticleInput = z.output<typeof createArticleBody>;

export const updateArticleBody = createArticleBody.partial();
export type UpdateArticleInput = z.output<typeof updateArticleBody>;

export const listArticlesQuery = paginationQuery().extend({
  search: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('full text (web search syntax: "quoted phrase", or, -exclude); ranked by relevance'),
  category: z.string().trim().min(1).max(100).optional(),
});
export type ListArticlesQuery = z.output<typeof listArticlesQuery>;

export const article = z.object({
  id: uuid,
  tenantId: uuid,
  title: z.string(),
  content: z.string(),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  metadata: jsonObject,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const articleResponse = dataOf(article);
export const articleList = listOf(article);

// ---- self-help search (SDK) ------------------------------------------------------------------

export const helpSearchQuery = z.object({
  q: z.string().trim().min(1).max(500).describe('what the end user typed'),
  limit: z.coerce.number().int().min(1).max(10).default(5),
});

export const helpSearchResponse = z.object({
  data: z.array(
    z.object({
      id: uuid,
      title: z.string(),
      excerpt: z.string().describe('the opening of the article as plain text, at most about 200 characters'),
      category: z.string().nullable(),
      url: z.string().nullable().describe("the article's `metadata.url` when it is an http(s) address"),
    }),
  ),
});

// ---- assistant --------------------------------------------------------------------------------

const MAX_CONTEXT_JSON = 4_000;

export const queryBody = z.object({
  message: z.string().trim().min(1).max(4_000),
  conversationId: uuid.optional().describe('continues that conversation; omit to start a new one'),
  context: jsonObject
    .refine(
      (c) => JSON.stringify(c).length <= MAX_CONTEXT_JSON,
      `must be at most ${MAX_CONTEXT_JSON} characters as JSON`,
    )
    .optional()
    .describe('what the user is looking at (page, plan, role…), given to the model as data'),
});

export const citation = z.object({ articleId: uuid, title: z.string() });

export const conversationMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  timestamp: z.string(),
  citations: z.array(citation).optional().describe('on assistant messages: the articles the answer used'),
});

export const queryResponse = dataOf(
  z.object({
    conversationId: uuid,
    response: z.string(),
    citations: z.array(citation),
    messages: z.array(conversationMessage),
  }),
);

export const conversation = z.object({
  id: uuid,
  tenantId: uuid,
  startedBy: uuid.nullable(),
  messages: z.array(conversationMessage),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const conversationList = listOf(conversation);
export const conversationResponse = dataOf(conversation);
export const listConversationsQuery = paginationQuery();

// ---- generation -------------------------------------------------------------------------------

const generationType = z.enum(GENERATION_TYPES);

export const generateContentBody = z.object({
  type: generationType,
  siteId: uuid,
  description: z.string().trim().min(1).max(2_000),
});

const preview = z.object({
  title: z.string(),
  summary: z.string().nullable(),
  items: z.array(z.string()),
});

export const generateContentResponse = dataOf(
  z.object({
    aiData: jsonObject.describe(
      'the create body of the matching endpoint, without siteId; commit it as is or edited',
    ),
    preview,
    tokensUsed: z.number().int().min(0),
  }),
);

export const commitContentBody = z.object({
  type: generationType,
  siteId: uuid,
  aiData: jsonObject,
});

export const commitContentResponse = dataOf(
  z.object({
    parentId: uuid,
    parentType: generationType,
    createdSubItemIds: z
      .record(z.string(), z.array(z.union([z.string(), z.number().int()])))
      .optional()
      .describe(
        'flows: { steps: [ids] }; surveys: { questions: [keys] }; task lists: { items: [positions] }',
      ),
  }),
);

export const suggestFlowBody = z.object({
  goal: z.string().trim().min(1).max(2_000),
  pageUrl: z.string().trim().min(1).max(2_048).optional(),
  userSegment: z.string().trim().min(1).max(500).optional(),
});

export const suggestFlowResponse = dataOf(
  z.object({
    suggestion: z.string(),
    steps: z
      .array(z.looseObject({ type: z.enum(FLOW_STEP_TYPES) }))
      .describe('as the steps of POST /api/flows'),
    tokensUsed: z.number().int().min(0),
  }),
);

export const suggestAudienceBody = z.object({ description: z.string().trim().min(1).max(500) });

export const suggestAudienceResponse = dataOf(
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    ruleTree: jsonObject.describe('accepted as is by POST /api/audiences'),
    explanation: z.string().nullable(),
    tokensUsed: z.number().int().min(0),
  }),
);

// ---- translation ------------------------------------------------------------------------------

export const translateBody = z.object({
  contentType: z.enum(TRANSLATABLE_TYPES),
  contentId: z.string().describe('the flow or content item'),
  locale: z.string().trim().min(2).max(35).describe('a locale code of the tenant'),
  overwrite: z.boolean().optional().describe('also replace existing translations (default false)'),
});

const translationKey = { contentType: z.string(), contentId: z.string(), fieldName: z.string() };

export const translateResponse = dataOf(
  z.object({
    locale: z.string(),
    translated: z.array(z.object({ ...translationKey, value: z.string(), version: z.number().int() })),
    skipped: z.array(z.object({ contentId: z.string(), fieldName: z.string(), reason: z.string() })),
    tokensUsed: z.number().int().min(0),
  }),
);
