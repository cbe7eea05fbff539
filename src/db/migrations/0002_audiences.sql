create table audiences (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  name text not null,
  description text,
  rule_tree jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index audiences_tenant_created_idx on audiences (tenant_id, created_at desc, id desc);
