-- SDK delivery: the per-tenant version of everything a session serves, and per end user the
-- items they completed or dismissed (the frequency cap).

-- One row per tenant, bumped once by every committed transaction that changes what the SDK
-- serves (flows, their steps, content items, NPS surveys, audiences, translations, locales,
-- tenant settings). A session reads it in the same statement as its end user; an instance whose
-- cached delivery snapshot carries an older version reloads it, so no instance serves content
-- older than the last commit it could have seen. No foreign key: rows of a tenant being deleted
-- may still be bumped by its cascading deletes.
create table tenant_delivery_versions (
  tenant_id uuid primary key,
  version bigint not null default 0,
  updated_at timestamptz not null default now()
);

-- The bump runs in a DEFERRED constraint trigger, i.e. at commit time: the version row is locked
-- only for the last instant of the writing transaction (after every other lock it takes), so it
-- cannot deadlock with row locks taken earlier and serializes writers of one tenant only briefly.
-- Row-level triggers fire once per changed row; a transaction-local setting makes every firing
-- after the first of a transaction (per tenant) a no-op, so a bulk write bumps once.
create function sdk_bump_delivery_version(t uuid) returns void language plpgsql as $$
declare
  flag text := 'guidance_dv.t' || replace(t::text, '-', '');
begin
  if t is null or current_setting(flag, true) = '1' then
    return;
  end if;
  perform set_config(flag, '1', true);
  insert into tenant_delivery_versions as v (tenant_id, version, updated_at) values (t, 1, now())
  on conflict (tenant_id) do update set version = v.version + 1, updated_at = now();
end $$;

create function sdk_delivery_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sdk_bump_delivery_version(old.tenant_id);
  else
    perform sdk_bump_delivery_version(new.tenant_id);
  end if;
  return null;
end $$;

create function sdk_tenant_changed() returns trigger language plpgsql as $$
begin
  perform sdk_bump_delivery_version(new.id);
  return null;
end $$;

create constraint trigger sdk_delivery_version after insert or update or delete on flows
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on flow_steps
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on content_items
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on nps_surveys
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on audiences
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on translations
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after insert or update or delete on locales
  deferrable initially deferred for each row execute function sdk_delivery_changed();
create constraint trigger sdk_delivery_version after update on tenants
  deferrable initially deferred for each row execute function sdk_tenant_changed();

-- Frequency cap state, maintained by event processing (FLOW_COMPLETED, FLOW_DISMISSED, ...).
-- `item_id` is a flow, content item or NPS survey id (no foreign key: items of any table).
create table end_user_item_states (
  tenant_id uuid not null references tenants (id) on delete cascade,
  end_user_id uuid not null references end_users (id) on delete cascade,
  item_id uuid not null,
  completed_at timestamptz,
  dismissed_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (tenant_id, end_user_id, item_id)
);
create index end_user_item_states_end_user_idx on end_user_item_states (end_user_id);

-- Sessions and events carrying only an anonymousId resolve through it, also to identified users
-- that kept the anonymousId they were linked from.
create index end_users_tenant_anonymous_any_idx on end_users (tenant_id, anonymous_id)
  where anonymous_id is not null;
