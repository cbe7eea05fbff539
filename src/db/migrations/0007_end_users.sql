-- End users of a tenant's app, as seen by the SDK: identified by the tenant's own userId, or
-- only by an anonymousId until they identify.
create table end_users (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  external_id text,
  anonymous_id text,
  traits jsonb not null default '{}',
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index end_users_tenant_external_key on end_users (tenant_id, external_id) where external_id is not null;
create unique index end_users_tenant_anonymous_key on end_users (tenant_id, anonymous_id)
  where anonymous_id is not null and external_id is null;
create index end_users_tenant_last_seen_idx on end_users (tenant_id, last_seen_at);
