-- Locales of a tenant and the translated fields of its content.
create table locales (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  code text not null check (char_length(code) between 2 and 10),
  name text not null,
  is_default boolean not null default false,
  is_rtl boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- target of the translations' composite foreign key: a translation's locale is its tenant's
  constraint locales_tenant_id_key unique (tenant_id, id)
);
create unique index locales_tenant_code_key on locales (tenant_id, lower(code));
-- at most one default locale per tenant, whatever the interleaving of concurrent writers
create unique index locales_tenant_default_key on locales (tenant_id) where is_default;

create table translations (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  locale_id uuid not null,
  content_type text not null,
  content_id text not null,
  field_name text not null,
  value text not null,
  version integer not null default 1 check (version >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- NO ACTION (checked at statement end) rather than RESTRICT: deleting a locale that still has
  -- translations fails, while deleting a tenant cascades to both tables in one statement.
  constraint translations_locale_fkey foreign key (tenant_id, locale_id)
    references locales (tenant_id, id) on delete no action
);
create unique index translations_key on translations (locale_id, content_type, content_id, field_name);
create index translations_tenant_created_idx on translations (tenant_id, created_at desc, id desc);
create index translations_tenant_content_idx on translations (tenant_id, content_type, content_id, field_name);
