import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
  index,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { created, ts, updated } from './columns.js';
import { tenants, users } from './platform.js';

// Tables of the AI module (migration 0035_ai.sql). The pgvector table of 0036_ai_vector.sql
// exists only where the extension does, so it is not declared here (see AI_CONDITIONAL_SCHEMA).

export const AI_PROVIDERS = ['OPENAI', 'GEMINI', 'CLAUDE'] as const;
export type AiProviderName = (typeof AI_PROVIDERS)[number];

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export const aiConfigs = pgTable(
  'ai_configs',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    provider: text('provider').$type<AiProviderName>().notNull(),
    model: text('model'),
    /** AES-256-GCM (platform/crypto.ts); never leaves the service. */
    encryptedKey: text('encrypted_key').notNull(),
    maskedKey: text('masked_key').notNull(),
    isEnabled: boolean('is_enabled').notNull().default(true),
    lastVerifiedAt: ts('last_verified_at'),
    embeddingsRetryAt: ts('embeddings_retry_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('ai_configs_tenant_key').on(t.tenantId),
    check('ai_configs_provider_check', sql`provider in ('OPENAI', 'GEMINI', 'CLAUDE')`),
  ],
);

export const aiKbArticles = pgTable(
  'ai_kb_articles',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    category: text('category'),
    tags: text('tags').array().notNull().default(sql`'{}'`),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    searchVector: tsvector('search_vector').generatedAlwaysAs(
      sql`setweight(to_tsvector('english', title), 'A')
      || setweight(to_tsvector('english', coalesce(category, '') || ' ' || ai_kb_tags_text(tags)), 'B')
      || setweight(to_tsvector('english', content), 'C')`,
    ),
    contentHash: text('content_hash').generatedAlwaysAs(sql`md5(title || E'\\n' || content)`),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('ai_kb_articles_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('ai_kb_articles_tenant_category_idx').on(t.tenantId, t.category),
    index('ai_kb_articles_search_idx').using('gin', t.searchVector),
  ],
);

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  citations?: { articleId: string; title: string }[];
}

export const aiConversations = pgTable(
  'ai_conversations',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    startedBy: uuid('started_by').references(() => users.id, { onDelete: 'set null' }),
    messages: jsonb('messages').$type<ConversationMessage[]>().notNull().default([]),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [index('ai_conversations_tenant_created_idx').on(t.tenantId, t.createdAt, t.id)],
);
