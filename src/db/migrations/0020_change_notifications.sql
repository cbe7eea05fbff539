-- Cache invalidation, one scheme (src/platform/change-feed.ts): the database announces every
-- change a cache without a per-request read depends on, whichever code made it. Notifications
-- are delivered at commit (a rolled-back change announces nothing) to every listening instance.
-- Payload: '<topic>:<key>'.

create function announce_change(topic text, key text) returns void language sql as $$
  select pg_notify('guidance_changes', topic || ':' || key)
$$;

-- The SDK config of a tenant (GET /api/sdk/config): its name and settings, its plan, its locales.
create function announce_tenant_config() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'tenants' then
    perform announce_change('tenant-config', new.id::text);
  elsif tg_table_name = 'plans' then
    perform announce_change('tenant-config', '*');
  elsif tg_op = 'DELETE' then
    perform announce_change('tenant-config', old.tenant_id::text);
  else
    perform announce_change('tenant-config', new.tenant_id::text);
  end if;
  return null;
end $$;

create trigger announce_tenant_config after update of name, settings on tenants
  for each row execute function announce_tenant_config();
create trigger announce_tenant_config after insert or update or delete on subscriptions
  for each row execute function announce_tenant_config();
create trigger announce_tenant_config after update or delete on plans
  for each row execute function announce_tenant_config();
create trigger announce_tenant_config after insert or update or delete on locales
  for each row execute function announce_tenant_config();

-- A verified API key is cached briefly on every instance: its revocation or new expiry is
-- announced (not `last_used_at`, written every few seconds).
create function announce_api_key() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform announce_change('api-key', old.key_hash);
  else
    perform announce_change('api-key', new.key_hash);
  end if;
  return null;
end $$;

create trigger announce_api_key after update of revoked_at, expires_at, key_hash or delete on api_keys
  for each row execute function announce_api_key();
