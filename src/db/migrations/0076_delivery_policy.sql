-- The tenant delivery policy (issue 38): frequency caps, cooldown and how long a dismissed item
-- stays away, one row per tenant that set one (none: nothing is held back). It is part of the
-- delivery snapshot, so a change bumps the tenant's delivery version like the items do.
create table tenant_delivery_policies (
  tenant_id uuid primary key references tenants (id) on delete cascade,
  policy jsonb not null,
  updated_at timestamptz not null default now()
);
create constraint trigger sdk_delivery_version after insert or update or delete on tenant_delivery_policies
  deferrable initially deferred for each row execute function sdk_delivery_changed();

-- The serve ledger: per end user and item, when a session last served it to start by itself
-- (written at serve time, under the end user's row lock, by sessions of tenants with a policy)
-- or its exposure was reported. Caps count the distinct items whose last serve is in a window;
-- `scopes` are the cap scopes the item fell in when served. No foreign key on item_id: items of
-- any table.
create table end_user_serves (
  tenant_id uuid not null references tenants (id) on delete cascade,
  end_user_id uuid not null references end_users (id) on delete cascade,
  item_id uuid not null,
  scopes text[] not null,
  first_at timestamptz not null,
  last_at timestamptz not null,
  primary key (tenant_id, end_user_id, item_id)
);
create index end_user_serves_end_user_idx on end_user_serves (end_user_id);
