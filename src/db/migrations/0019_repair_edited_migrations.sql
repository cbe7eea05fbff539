-- Migrations 0004, 0006 and 0008 were edited after later migrations existed (before applied
-- files were checksummed; see src/db/migrate.ts). A database that applied their first versions
-- lacks what the edits added. This brings such a database to what those files create today;
-- on a database that applied the current files it changes nothing.

-- 0008: the event log's `source` column.
alter table event_batches add column if not exists source text not null default 'sdk';
do $$
begin
  if not exists (select 1 from pg_constraint where conrelid = 'event_batches'::regclass
                 and conname = 'event_batches_source_check') then
    alter table event_batches add constraint event_batches_source_check check (source in ('sdk', 'server'));
  end if;
end $$;

-- 0004: response idempotency keys are per tenant (an event id is unique only within its tenant).
do $$
begin
  if exists (select 1 from pg_constraint where conrelid = 'survey_responses'::regclass
             and conname = 'survey_responses_event_key' and cardinality(conkey) = 1) then
    alter table survey_responses drop constraint survey_responses_event_key;
    alter table survey_responses add constraint survey_responses_event_key unique (tenant_id, event_id);
  end if;
  if exists (select 1 from pg_constraint where conrelid = 'nps_responses'::regclass
             and conname = 'nps_responses_event_key' and cardinality(conkey) = 1) then
    alter table nps_responses drop constraint nps_responses_event_key;
    alter table nps_responses add constraint nps_responses_event_key unique (tenant_id, event_id);
  end if;
end $$;

-- 0006: the seeded plans' later values, only where a plan still has its first seeded values
-- (a plan an operator changed is left alone).
update plans set
  features = '{"flows": true, "surveys": true, "experiments": false, "ai": false, "journeys": false, "translations": true}',
  limits = '{"flows": 50, "activeUsers": 2500, "apiKeys": 10, "members": 10, "aiTokens": 0, "journeys": 0, "experiments": 0}'
where name = 'free'
  and features = '{"flows": true, "surveys": true, "experiments": false, "ai": false, "journeys": false, "translations": false}'
  and limits = '{"flows": 5, "activeUsers": 1000, "apiKeys": 2, "members": 3, "aiTokens": 0, "journeys": 0, "experiments": 0}';
update plans set
  limits = '{"flows": 200, "activeUsers": 10000, "apiKeys": 20, "members": 25, "aiTokens": 100000, "journeys": 10, "experiments": 0}'
where name = 'starter'
  and limits = '{"flows": 25, "activeUsers": 10000, "apiKeys": 5, "members": 10, "aiTokens": 100000, "journeys": 5, "experiments": 0}';
update plans set
  limits = '{"flows": 1000, "activeUsers": 50000, "apiKeys": 50, "members": 100, "aiTokens": 1000000, "journeys": 50, "experiments": 25}'
where name = 'growth'
  and limits = '{"flows": 100, "activeUsers": 50000, "apiKeys": 20, "members": 25, "aiTokens": 1000000, "journeys": 25, "experiments": 10}';
