-- Plans are data, seeded here with fixed ids; a tenant has exactly one subscription.
create table plans (
  id uuid primary key,
  name text not null,
  price_monthly numeric(10, 2) not null default 0,
  price_yearly numeric(10, 2) not null default 0,
  -- { flows, surveys, experiments, ai, journeys, translations }: booleans
  features jsonb not null default '{}',
  -- { flows, activeUsers, apiKeys, members, aiTokens, journeys, experiments }: numbers, null = unlimited
  limits jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index plans_name_key on plans (name);

insert into plans (id, name, price_monthly, price_yearly, features, limits) values
  ('0190a000-0000-7000-8000-000000000001', 'free', 0, 0,
   '{"flows": true, "surveys": true, "experiments": false, "ai": false, "journeys": false, "translations": true}',
   '{"flows": 50, "activeUsers": 2500, "apiKeys": 10, "members": 10, "aiTokens": 0, "journeys": 0, "experiments": 0}'),
  ('0190a000-0000-7000-8000-000000000002', 'starter', 29, 290,
   '{"flows": true, "surveys": true, "experiments": false, "ai": true, "journeys": true, "translations": true}',
   '{"flows": 200, "activeUsers": 10000, "apiKeys": 20, "members": 25, "aiTokens": 100000, "journeys": 10, "experiments": 0}'),
  ('0190a000-0000-7000-8000-000000000003', 'growth', 99, 990,
   '{"flows": true, "surveys": true, "experiments": true, "ai": true, "journeys": true, "translations": true}',
   '{"flows": 1000, "activeUsers": 50000, "apiKeys": 50, "members": 100, "aiTokens": 1000000, "journeys": 50, "experiments": 25}'),
  ('0190a000-0000-7000-8000-000000000004', 'enterprise', 499, 4990,
   '{"flows": true, "surveys": true, "experiments": true, "ai": true, "journeys": true, "translations": true}',
   '{"flows": null, "activeUsers": null, "apiKeys": null, "members": null, "aiTokens": null, "journeys": null, "experiments": null}');

create table subscriptions (
  tenant_id uuid primary key references tenants (id) on delete cascade,
  plan_id uuid not null references plans (id),
  status text not null default 'active' check (status in ('active', 'trialing', 'past_due', 'canceled')),
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index subscriptions_plan_idx on subscriptions (plan_id);

-- Tenants that existed before plans: the free plan, from now.
insert into subscriptions (tenant_id, plan_id, current_period_start, current_period_end)
select t.id, '0190a000-0000-7000-8000-000000000001', now(), now() + interval '1 month'
from tenants t;

-- Written by the AI module per provider call; usage sums it over the subscription period.
create table ai_token_usage (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  tokens integer not null check (tokens >= 0),
  created_at timestamptz not null default now()
);
create index ai_token_usage_tenant_created_idx on ai_token_usage (tenant_id, created_at);
