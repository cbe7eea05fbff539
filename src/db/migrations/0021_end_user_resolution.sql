-- The one rule for which end user a session or an event belongs to (it was written four times in
-- SQL strings): by userId (external id) when given; otherwise by anonymousId, the anonymous-only
-- row first, else the identified user most recently seen with that anonymousId (identify links an
-- anonymous visitor to the user it becomes, and the user keeps the anonymousId).
--
-- A single-SELECT SQL set-returning function: PostgreSQL inlines it into the calling query, so a
-- lateral join on it plans exactly as the subquery it replaces (no function-call overhead).
create function end_user_of(tenant uuid, ext text, anon text) returns setof end_users
language sql stable rows 1 as $$
  (select * from end_users eu
    where ext is not null and eu.tenant_id = tenant and eu.external_id = ext)
  union all
  (select * from end_users eu
    where ext is null and anon is not null and eu.tenant_id = tenant and eu.anonymous_id = anon
    order by (eu.external_id is null) desc, eu.last_seen_at desc, eu.id desc
    limit 1)
  limit 1
$$;
