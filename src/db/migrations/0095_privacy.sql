-- End-user deletion requests (issue 37, docs/privacy.md). A request is a durable job: the
-- deletion job claims a pending (or a running one whose lease ran out) with a lease, erases the
-- end user's rows in one transaction with its own completion and the `end_user.deleted` webhook,
-- so a crash mid-job leaves the request to be claimed again and nothing is half done.
-- `external_user_id` (the SDK's userId) is the request itself: it is kept as the record of what
-- was erased (docs/privacy.md, "What is kept").
create table privacy_deletions (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  external_user_id text not null,
  status text not null default 'pending',
  requested_by uuid,
  attempts integer not null default 0,
  lease_until timestamptz,
  removed jsonb not null default '{}'::jsonb,
  last_error text,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint privacy_deletions_status_check check (status in ('pending', 'running', 'completed', 'failed'))
);
create index privacy_deletions_tenant_created_idx on privacy_deletions (tenant_id, created_at desc, id desc);
create index privacy_deletions_due_idx on privacy_deletions (created_at) where status in ('pending', 'running');
