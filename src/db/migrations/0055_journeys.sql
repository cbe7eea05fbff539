-- Journeys (issue 18): the canvas (journeys, journey_nodes, journey_edges) and the durable
-- enrollment engine (journey_enrollments, journey_node_visits, journey_timers). See docs/journeys.md.

create table journeys (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  site_id uuid not null,
  name text not null,
  description text,
  status text not null default 'DRAFT' check (status in ('DRAFT', 'PUBLISHED', 'PAUSED', 'ARCHIVED')),
  audience_id uuid,
  settings jsonb not null default '{}',
  goal_config jsonb,
  allow_anonymous boolean not null default false,
  -- the TRIGGER node's triggerType (null without one), kept with the canvas: event processing and
  -- session delivery pick the journeys an event or a session may enroll into without the canvas
  trigger_type text,
  -- bumped by every canvas replacement: compiled graphs are cached per (journey, canvas_version)
  canvas_version integer not null default 1,
  published_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index journeys_tenant_created_idx on journeys (tenant_id, created_at desc, id desc);
create index journeys_tenant_status_idx on journeys (tenant_id, status);
create index journeys_tenant_audience_idx on journeys (tenant_id, audience_id) where audience_id is not null;

-- Node ids are the client's (kept across canvas saves), unique within their journey.
create table journey_nodes (
  journey_id uuid not null references journeys (id) on delete cascade,
  id uuid not null,
  tenant_id uuid not null references tenants (id) on delete cascade,
  ord integer not null,
  type text not null,
  config jsonb not null default '{}',
  content_id uuid,
  position jsonb not null,
  primary key (journey_id, id)
);
create index journey_nodes_tenant_content_idx on journey_nodes (tenant_id, content_id) where content_id is not null;

create table journey_edges (
  journey_id uuid not null references journeys (id) on delete cascade,
  ord integer not null,
  tenant_id uuid not null references tenants (id) on delete cascade,
  source_node_id uuid not null,
  target_node_id uuid not null,
  label text,
  primary key (journey_id, ord)
);

-- One row per enrollment; `state` is the pure machine's EnrollmentState (engine/journeys/machine.ts)
-- as it stands after the last step. current_node_id and status mirror it for queries.
create table journey_enrollments (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  journey_id uuid not null references journeys (id) on delete cascade,
  end_user_id uuid not null references end_users (id) on delete cascade,
  status text not null default 'in_progress'
    check (status in ('in_progress', 'completed', 'goal_reached', 'abandoned', 'stopped')),
  current_node_id uuid,
  state jsonb not null,
  enrolled_at timestamptz not null,
  ended_at timestamptz,
  goal_reached_at timestamptz,
  updated_at timestamptz not null default now()
);
-- Nobody is enrolled twice at once in one journey, whichever instance enrolls.
create unique index journey_enrollments_active_key on journey_enrollments (journey_id, end_user_id)
  where status = 'in_progress';
-- An end user's in-progress enrollments: what each of their events is fed to.
create index journey_enrollments_user_active_idx on journey_enrollments (tenant_id, end_user_id)
  where status = 'in_progress';
create index journey_enrollments_journey_user_idx on journey_enrollments (journey_id, end_user_id);
create index journey_enrollments_journey_enrolled_idx on journey_enrollments (journey_id, enrolled_at desc, id desc);

-- Node history: one row per (enrollment, node, visit). The key makes every node effect happen
-- once: a retried step cannot enter a node visit twice.
create table journey_node_visits (
  enrollment_id uuid not null references journey_enrollments (id) on delete cascade,
  node_id uuid not null,
  visit integer not null,
  tenant_id uuid not null references tenants (id) on delete cascade,
  journey_id uuid not null references journeys (id) on delete cascade,
  entered_at timestamptz not null,
  exited_at timestamptz,
  edge_label text,
  primary key (enrollment_id, node_id, visit)
);
create index journey_node_visits_journey_node_idx on journey_node_visits (journey_id, node_id);

-- Timers: at most one node timer (WAIT, WAIT_FOR_EVENT timeout) and one goal deadline per
-- enrollment. The timer job claims due rows with FOR UPDATE SKIP LOCKED (with their enrollment),
-- steps the enrollment and deletes the row in one transaction: each fires once across instances.
create table journey_timers (
  enrollment_id uuid not null references journey_enrollments (id) on delete cascade,
  kind text not null check (kind in ('node', 'deadline')),
  tenant_id uuid not null references tenants (id) on delete cascade,
  journey_id uuid not null references journeys (id) on delete cascade,
  node_id uuid,
  visit integer not null default 0,
  due_at timestamptz not null,
  primary key (enrollment_id, kind)
);
create index journey_timers_due_idx on journey_timers (due_at);

-- What a session serves depends on the journeys and their CONTENT nodes (the on-demand items of
-- the delivery snapshot): changing them bumps the tenant's delivery version (migration 0014).
create constraint trigger sdk_delivery_version after insert or update or delete on journeys
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on journey_nodes
  deferrable initially deferred for each row execute function sdk_delivery_changed();
