-- Outgoing webhooks (issue 37, docs/webhooks.md). An endpoint subscribes to event types; its
-- signing secret is kept encrypted (ENCRYPTION_KEY), with the previous one valid for 24 h after a
-- rotation. Deliveries are the outbox: a row is written in the transaction of the change (or of
-- the processed events) that caused it, and the delivery job claims due rows with a lease, so a
-- crash mid-delivery leaves the row to be claimed again (same webhook-id).
create table webhooks (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  url text not null,
  description text not null default '',
  events text[] not null,
  enabled boolean not null default true,
  secret_encrypted text not null,
  previous_secret_encrypted text,
  previous_secret_expires_at timestamptz,
  disabled_reason text,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_tenant_created_idx on webhooks (tenant_id, created_at desc, id desc);

create table webhook_deliveries (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  webhook_id uuid not null references webhooks(id) on delete cascade,
  message_id text not null,
  event_type text not null,
  payload text not null,
  status text not null default 'pending',
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  response_status integer,
  response_body text,
  latency_ms integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint webhook_deliveries_status_check check (status in ('pending', 'delivered', 'failed'))
);
create index webhook_deliveries_webhook_created_idx on webhook_deliveries (webhook_id, created_at desc, id desc);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';
