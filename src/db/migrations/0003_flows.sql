create table flows (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  site_id uuid not null,
  name text not null,
  description text,
  template text not null,
  status text not null default 'DRAFT' check (status in ('DRAFT', 'PUBLISHED', 'SCHEDULED', 'ARCHIVED')),
  audience_id uuid,
  settings jsonb not null default '{}',
  trigger jsonb,
  scheduled_at timestamptz,
  expires_at timestamptz,
  published_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index flows_tenant_created_idx on flows (tenant_id, created_at desc, id desc);
create index flows_tenant_status_idx on flows (tenant_id, status);
create index flows_tenant_audience_idx on flows (tenant_id, audience_id) where audience_id is not null;
create index flows_due_idx on flows (scheduled_at) where status = 'SCHEDULED';
create index flows_expiry_idx on flows (expires_at) where status in ('PUBLISHED', 'SCHEDULED') and expires_at is not null;

create table flow_steps (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  flow_id uuid not null references flows (id) on delete cascade,
  "order" integer not null check ("order" >= 0),
  type text not null,
  target_selector text,
  content jsonb not null default '{}',
  settings jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- deferred so a reorder can permute positions inside one transaction
  constraint flow_steps_flow_order_key unique (flow_id, "order") deferrable initially deferred
);
create index flow_steps_tenant_flow_idx on flow_steps (tenant_id, flow_id);
