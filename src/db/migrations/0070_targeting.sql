-- Targeting (issue 40): target health and fingerprints from the SDK's TARGET_LOOKUP reports, and
-- the element picker's pick tokens. A "target" is a flow step (its id) or a targeted content item
-- (a tooltip or beacon: its id); `item_kind` / `item_id` name the flow or content item it belongs
-- to. No foreign key to the steps and items: the rows of a deleted target simply stop being shown
-- and age out.

-- The fingerprint served with a flow step (`targetFingerprint`): the one its lookups reported most
-- often for its current selector, or the picker's. Content items keep theirs in `body`.
alter table flow_steps add column target_fingerprint jsonb;

-- Lookup outcomes per target, authored selector and hour (the window of "broken in the last
-- hour"); kept 8 days (the targeting-retention job), read over the last 7.
create table target_lookups (
  tenant_id uuid not null references tenants (id) on delete cascade,
  target_id uuid not null,
  selector text not null,
  hour timestamptz not null,
  item_kind text not null,
  item_id uuid not null,
  found integer not null default 0,
  healed integer not null default 0,
  ambiguous integer not null default 0,
  missing integer not null default 0,
  suggested_selector text,
  last_seen_at timestamptz not null,
  primary key (tenant_id, target_id, selector, hour),
  constraint target_lookups_item_kind_check check (item_kind in ('flow', 'content'))
);
create index target_lookups_tenant_hour_idx on target_lookups (tenant_id, hour);
create index target_lookups_hour_idx on target_lookups (hour);

-- Fingerprints reported per target and selector, by their canonical key (the fingerprint without
-- its position): how often each was seen, the latest copy, and whether the picker authored it.
create table target_fingerprints (
  tenant_id uuid not null references tenants (id) on delete cascade,
  target_id uuid not null,
  selector text not null,
  fp_key text not null,
  fingerprint jsonb not null,
  seen_count integer not null default 0,
  picked boolean not null default false,
  last_seen_at timestamptz not null,
  primary key (tenant_id, target_id, selector, fp_key)
);

-- Pick tokens: short-lived, single-use, bound to tenant, dashboard user and target. Only the
-- token's sha256 is stored. The pick's result is kept on the row for the dashboard to collect.
create table pick_tokens (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  token_hash text not null,
  item_kind text not null,
  item_id uuid not null,
  step_id uuid,
  expires_at timestamptz not null,
  used_at timestamptz,
  selector text,
  fingerprint jsonb,
  created_at timestamptz not null default now(),
  constraint pick_tokens_token_hash_key unique (token_hash),
  constraint pick_tokens_item_kind_check check (item_kind in ('flow', 'content'))
);
create index pick_tokens_expires_idx on pick_tokens (expires_at);
