-- Event retention (docs/retention.md). Each plan says how many days a tenant's events are kept
-- (`limits.retentionDays`, null = kept forever); the `event-retention` job removes older ones.
-- Seeded plans get a value unless an operator already gave them one.
update plans set limits = limits || jsonb_build_object('retentionDays', case name
    when 'free' then 30 when 'starter' then 90 when 'growth' then 180 else 365 end)
where name in ('free', 'starter', 'growth', 'enterprise') and not limits ? 'retentionDays';

-- On PostgreSQL the event log is partitioned by the month it was received (UTC), so expired
-- months go as one DROP TABLE instead of a long DELETE. A primary key of a partitioned table must
-- hold the partition key: it becomes (id, received_at) on both databases (one drizzle schema);
-- no query relies on `id` alone being a key (no ON CONFLICT, no foreign key refers to it).
-- The embedded database keeps one table (its retention is a batched DELETE): PGlite serves one
-- process, and its statements that cannot be pruned to one month (the processor's claims by id)
-- would pay for every partition in WebAssembly on the server's thread.
alter table event_batches drop constraint event_batches_pkey;
alter table event_batches add primary key (id, received_at);

-- Adds the partition of `month` (any day in it) unless it exists; rows that fell into the
-- default partition for that month (received while no partition covered it) move into it
-- first. Used here and by the retention job, which keeps the coming months ready.
create function event_batches_add_month(month date) returns boolean language plpgsql as $$
declare
  lo timestamptz := date_trunc('month', month::timestamp) at time zone 'UTC';
  hi timestamptz := (date_trunc('month', month::timestamp) + interval '1 month') at time zone 'UTC';
  part text := 'event_batches_p' || to_char(month, 'YYYY_MM');
begin
  if to_regclass(part) is not null then
    return false;
  end if;
  execute format('create table %I (like event_batches including all)', part);
  -- No row of that month may reach the default partition between the move and the attach (the
  -- attach would fail). Inserts routed to other partitions do not take this lock.
  lock table event_batches_default in exclusive mode;
  execute format(
    'with moved as (delete from event_batches_default where received_at >= %L and received_at < %L returning *)
     insert into %I select * from moved', lo, hi, part);
  execute format('alter table event_batches attach partition %I for values from (%L) to (%L)', part, lo, hi);
  return true;
end
$$;

do $$
declare
  first_month date;
  m date;
begin
  if version() like '%emscripten%' then
    return;
  end if;
  alter table event_batches rename to event_batches_unpartitioned;
  alter index event_batches_pkey rename to event_batches_unpartitioned_pkey;
  alter index event_batches_tenant_received_idx rename to event_batches_unpartitioned_tenant_received_idx;
  alter index event_batches_new_idx rename to event_batches_unpartitioned_new_idx;
  alter index event_batches_retry_idx rename to event_batches_unpartitioned_retry_idx;

  create table event_batches (
    id uuid not null,
    tenant_id uuid not null,
    correlation_id uuid not null,
    api_key_id uuid,
    received_at timestamptz not null,
    event_count integer not null,
    events text,
    source text not null default 'sdk',
    processed_at timestamptz,
    attempts integer not null default 0,
    last_error text,
    events_br bytea,
    constraint event_batches_pkey primary key (id, received_at),
    constraint event_batches_source_check check (source in ('sdk', 'server')),
    constraint event_batches_body_check check ((events is null) <> (events_br is null))
  ) partition by range (received_at);
  create index event_batches_tenant_received_idx on event_batches (tenant_id, received_at);
  create index event_batches_new_idx on event_batches (id) where processed_at is null and attempts = 0;
  create index event_batches_retry_idx on event_batches (id) where processed_at is null and attempts > 0;
  -- As 0066: lz4 where the server has it; partitions inherit the column's compression.
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
    alter table event_batches alter column events set compression lz4;
  end if;
  -- Rows whose month has no partition yet (a clock far ahead, the job not run for months):
  -- inserts never fail; the job moves them into their month's partition.
  create table event_batches_default partition of event_batches default;

  select date_trunc('month', min(received_at) at time zone 'UTC')::date into first_month
  from event_batches_unpartitioned;
  m := least(coalesce(first_month, current_date), date_trunc('month', now() at time zone 'UTC')::date);
  while m <= (date_trunc('month', now() at time zone 'UTC') + interval '2 months')::date loop
    perform event_batches_add_month(m);
    m := (m + interval '1 month')::date;
  end loop;

  insert into event_batches (id, tenant_id, correlation_id, api_key_id, received_at, event_count, events,
      source, processed_at, attempts, last_error, events_br)
  select id, tenant_id, correlation_id, api_key_id, received_at, event_count, events,
      source, processed_at, attempts, last_error, events_br
  from event_batches_unpartitioned;
  drop table event_batches_unpartitioned;
end
$$;
