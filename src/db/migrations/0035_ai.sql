-- The AI module: one provider configuration per tenant (the key encrypted with AES-256-GCM,
-- only a masked form readable), knowledge-base articles searched by PostgreSQL full text, and
-- the conversations of the assistant.

create table ai_configs (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  provider text not null check (provider in ('OPENAI', 'GEMINI', 'CLAUDE')),
  -- null: the provider's default model.
  model text,
  encrypted_key text not null,
  masked_key text not null,
  is_enabled boolean not null default true,
  last_verified_at timestamptz,
  -- While set and in the future, background embedding skips the tenant (the provider failed).
  embeddings_retry_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index ai_configs_tenant_key on ai_configs (tenant_id);

-- Tags in the search vector: array_to_string is only STABLE (it is polymorphic), which a
-- generated column refuses; for text[] its result depends on nothing but the input.
create function ai_kb_tags_text(tags text[]) returns text
  language sql immutable parallel safe
  as $$ select array_to_string(tags, ' ') $$;

create table ai_kb_articles (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  title text not null,
  content text not null,
  category text,
  tags text[] not null default '{}',
  metadata jsonb not null default '{}',
  -- Title weighs most, then category and tags, then the body.
  search_vector tsvector generated always as (
    setweight(to_tsvector('english', title), 'A')
      || setweight(to_tsvector('english', coalesce(category, '') || ' ' || ai_kb_tags_text(tags)), 'B')
      || setweight(to_tsvector('english', content), 'C')
  ) stored,
  -- What an embedding was computed from: a changed article is embedded again.
  content_hash text generated always as (md5(title || E'\n' || content)) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ai_kb_articles_tenant_created_idx on ai_kb_articles (tenant_id, created_at, id);
create index ai_kb_articles_tenant_category_idx on ai_kb_articles (tenant_id, category);
create index ai_kb_articles_search_idx on ai_kb_articles using gin (search_vector);

create table ai_conversations (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  -- The member who started it (null once that user is deleted).
  started_by uuid references users (id) on delete set null,
  -- [{ role: user | assistant, content, timestamp, citations? }], appended atomically.
  messages jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ai_conversations_tenant_created_idx on ai_conversations (tenant_id, created_at, id);
