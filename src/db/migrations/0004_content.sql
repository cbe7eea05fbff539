-- Content items of every type (tooltips, beacons, task-lists, surveys, announcements, self-help)
-- in one table: the common columns, plus `body` for the type-specific fields (validated per type
-- by the content module's schemas). `type` is the type slug used in the URL.
create table content_items (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  type text not null check (type in ('tooltips', 'beacons', 'task-lists', 'surveys', 'announcements', 'self-help')),
  name text not null,
  site_id uuid not null,
  status text not null default 'DRAFT' check (status in ('DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED')),
  audience_id uuid,
  trigger_config jsonb,
  target_url text,
  body jsonb not null default '{}',
  scheduled_at timestamptz,
  expires_at timestamptz,
  published_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index content_items_tenant_type_created_idx on content_items (tenant_id, type, created_at desc, id desc);
create index content_items_tenant_type_status_idx on content_items (tenant_id, type, status);
create index content_items_tenant_audience_idx on content_items (tenant_id, audience_id) where audience_id is not null;
create index content_items_due_idx on content_items (scheduled_at) where status = 'SCHEDULED';
create index content_items_expiry_idx on content_items (expires_at)
  where status in ('PUBLISHED', 'SCHEDULED') and expires_at is not null;
create index content_items_tenant_published_idx on content_items (tenant_id) where status = 'PUBLISHED';

create table nps_surveys (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  name text not null,
  site_id uuid not null,
  status text not null default 'DRAFT' check (status in ('DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED')),
  audience_id uuid,
  trigger_config jsonb,
  question text not null,
  follow_up_question text,
  published_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index nps_surveys_tenant_created_idx on nps_surveys (tenant_id, created_at desc, id desc);
create index nps_surveys_tenant_status_idx on nps_surveys (tenant_id, status);
create index nps_surveys_tenant_audience_idx on nps_surveys (tenant_id, audience_id) where audience_id is not null;

-- Written by event processing (SURVEY_RESPONSE events); `event_id` makes those writes idempotent.
-- `end_user_id` names a row of end_users (migration 0007, which runs later: no foreign key).
create table survey_responses (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  survey_id uuid not null references content_items (id) on delete cascade,
  end_user_id uuid,
  response jsonb not null default '{}',
  submitted_at timestamptz not null default now(),
  event_id uuid,
  created_at timestamptz not null default now(),
  constraint survey_responses_event_key unique (tenant_id, event_id)
);
create index survey_responses_tenant_survey_idx on survey_responses (tenant_id, survey_id, submitted_at desc, id desc);

-- Written by event processing (NPS_RESPONSE events).
create table nps_responses (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  nps_survey_id uuid not null references nps_surveys (id) on delete cascade,
  end_user_id uuid,
  score integer not null check (score between 0 and 10),
  comment text,
  submitted_at timestamptz not null default now(),
  event_id uuid,
  created_at timestamptz not null default now(),
  constraint nps_responses_event_key unique (tenant_id, event_id)
);
create index nps_responses_tenant_survey_idx on nps_responses (tenant_id, nps_survey_id, submitted_at desc, id desc);
