-- Experiments (A/B tests over flows): the experiment, its variants in order (the first is the
-- control), and one assignment per (experiment, end user) made at first exposure in
-- POST /api/sdk/session, which also records the user's conversion (counted once per user).

create table experiments (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  name text not null,
  description text,
  type text not null default 'ab_test' check (type in ('ab_test')),
  status text not null default 'draft'
    check (status in ('draft', 'running', 'stopped', 'completed', 'archived')),
  audience_id uuid,
  -- The hash seed of assignment (engine/experiments/assignment.ts): fixed at create, never
  -- changed, so every instance buckets a user the same way for the experiment's whole life.
  seed text not null,
  start_date timestamptz,
  end_date timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index experiments_tenant_created_idx on experiments (tenant_id, created_at desc, id desc);
create index experiments_tenant_status_idx on experiments (tenant_id, status);
create index experiments_tenant_audience_idx on experiments (tenant_id, audience_id)
  where audience_id is not null;
-- The completion job: experiments whose end date has passed.
create index experiments_end_idx on experiments (end_date)
  where status in ('running', 'stopped') and end_date is not null;

-- Splits are stored in basis points (hundredths of a percent, one assignment bucket each), so
-- "they sum to 100" is an exact integer comparison.
create table experiment_variants (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  experiment_id uuid not null references experiments (id) on delete cascade,
  position integer not null check (position >= 0),
  name text not null,
  split_basis_points integer not null check (split_basis_points between 0 and 10000),
  flow_id uuid references flows (id) on delete set null,
  config jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint experiment_variants_position_key unique (experiment_id, position)
);
create index experiment_variants_tenant_flow_idx on experiment_variants (tenant_id, flow_id)
  where flow_id is not null;

-- One row per (experiment, end user): the primary key makes concurrent first sessions of one
-- user insert one row (ON CONFLICT DO NOTHING). `converted_at` is set once, by the first
-- EXPERIMENT_CONVERSION that agrees with the assignment.
create table experiment_assignments (
  experiment_id uuid not null references experiments (id) on delete cascade,
  end_user_id uuid not null references end_users (id) on delete cascade,
  tenant_id uuid not null,
  variant_id uuid not null references experiment_variants (id) on delete cascade,
  assigned_at timestamptz not null,
  converted_at timestamptz,
  primary key (experiment_id, end_user_id)
);
-- A session reads its user's assignments; identify merges move them.
create index experiment_assignments_end_user_idx on experiment_assignments (end_user_id);
-- Results: per variant counts and daily series, read from the index alone (index-only scan).
create index experiment_assignments_results_idx
  on experiment_assignments (tenant_id, experiment_id, variant_id, assigned_at, converted_at);

-- What a session serves depends on running experiments and their variants: bump the tenant's
-- delivery version at commit (migration 0014). Assignments are per-user state, read by the
-- session's own statement, and bump nothing.
create constraint trigger sdk_delivery_version after insert or update or delete on experiments
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on experiment_variants
  deferrable initially deferred for each row execute function sdk_delivery_changed();
