-- The event log. Each accepted SDK request is one row holding its request body as received
-- (validated before the 202; `_apiKey` never stored): the hot path writes one row per request
-- (many requests share one INSERT through group commit) and does no per-event work;
-- processors decode the events (ids, timestamps) and fan them out asynchronously. `source`
-- is `sdk` for client requests and `server` for events the service records itself (session
-- starts, IDENTIFY). A batch is pending until `processed_at` is set in the same transaction
-- as every effect of processing it.
create table event_batches (
  id uuid primary key,
  tenant_id uuid not null,
  correlation_id uuid not null,
  api_key_id uuid,
  received_at timestamptz not null,
  event_count integer not null,
  events text not null,
  source text not null default 'sdk' check (source in ('sdk', 'server')),
  processed_at timestamptz,
  attempts integer not null default 0,
  last_error text
);
create index event_batches_pending_idx on event_batches (id) where processed_at is null;
create index event_batches_tenant_received_idx on event_batches (tenant_id, received_at);

-- Client event ids already processed: a retried batch counts once.
create table processed_event_ids (
  tenant_id uuid not null,
  event_id uuid not null,
  processed_at timestamptz not null default now(),
  primary key (tenant_id, event_id)
);

-- Events that processing refused (a survey answer that does not fit its survey, ...), with why.
create table event_dead_letters (
  id uuid primary key,
  tenant_id uuid not null,
  batch_id uuid not null,
  correlation_id uuid not null,
  event jsonb not null,
  reason text not null,
  created_at timestamptz not null default now()
);
create index event_dead_letters_tenant_idx on event_dead_letters (tenant_id, created_at);
