-- Vector retrieval for the knowledge base, only where the pgvector extension can be installed
-- (PostgreSQL with postgresql-NN-pgvector). Elsewhere nothing is created and retrieval uses
-- full text alone; the service detects which at boot. These objects are listed in
-- AI_CONDITIONAL_SCHEMA (src/modules/ai/vector-support.ts), outside the drizzle schema.
-- Embeddings of different models have different dimensions, so the column has none; queries
-- compare only rows of the tenant's current model (exact search over one tenant's articles).
do $$
begin
  if not exists (select 1 from pg_available_extensions where name = 'vector') then
    return;
  end if;
  begin
    create extension if not exists vector;
  exception when others then
    -- Available but not installable by this role: stay on full text.
    raise notice 'pgvector is available but could not be installed: %', sqlerrm;
    return;
  end;
  create table ai_kb_embeddings (
    article_id uuid primary key references ai_kb_articles (id) on delete cascade,
    tenant_id uuid not null references tenants (id) on delete cascade,
    model text not null,
    content_hash text not null,
    embedding vector not null,
    created_at timestamptz not null default now()
  );
  create index ai_kb_embeddings_tenant_model_idx on ai_kb_embeddings (tenant_id, model);
end
$$;
