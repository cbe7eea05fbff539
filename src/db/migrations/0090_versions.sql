-- Versions (issue 39): publishing a flow, content item or journey takes an immutable snapshot;
-- every change of an audience is one. `item_versions` holds the history (the history only grows),
-- `live_item_versions` which version each published item serves. See docs/versions.md.

-- A snapshot is the item's versioned fields as JSON: brotli-compressed by the service
-- (`snapshot_br`), or plain jsonb (`snapshot`) where SQL wrote it (the backfill below).
create table item_versions (
  tenant_id uuid not null references tenants (id) on delete cascade,
  item_type text not null check (item_type in ('flow', 'content', 'journey', 'audience')),
  item_id uuid not null,
  version integer not null check (version > 0),
  snapshot jsonb,
  snapshot_br bytea,
  note text,
  -- the user who published (null: the scheduler, or the migration)
  published_by uuid,
  published_at timestamptz not null default now(),
  primary key (tenant_id, item_type, item_id, version),
  check ((snapshot is null) <> (snapshot_br is null))
);

-- The version each item serves while it is PUBLISHED (audiences have none: every version is live).
create table live_item_versions (
  tenant_id uuid not null,
  item_type text not null,
  item_id uuid not null,
  version integer not null,
  published_at timestamptz not null,
  primary key (tenant_id, item_type, item_id),
  foreign key (tenant_id, item_type, item_id, version)
    references item_versions (tenant_id, item_type, item_id, version) on delete cascade
);

-- What a session serves is the live snapshot: moving it bumps the tenant's delivery version
-- (migration 0014), so every instance reloads its snapshot at the next session.
create constraint trigger sdk_delivery_version after insert or update or delete on live_item_versions
  deferrable initially deferred for each row execute function sdk_delivery_changed();

-- Existing data: every published item gets version 1, live; every audience version 1.
insert into item_versions (tenant_id, item_type, item_id, version, snapshot, published_at)
select f.tenant_id, 'flow', f.id, 1,
  jsonb_build_object(
    'name', f.name, 'description', f.description, 'siteId', f.site_id, 'template', f.template,
    'audienceId', f.audience_id, 'settings', f.settings, 'trigger', f.trigger,
    'steps', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', s.id, 'type', s.type, 'targetSelector', s.target_selector,
        'content', s.content, 'settings', s.settings) order by s."order")
      from flow_steps s where s.flow_id = f.id and s.tenant_id = f.tenant_id), '[]'::jsonb)),
  coalesce(f.published_at, f.updated_at)
from flows f where f.status = 'PUBLISHED';

insert into item_versions (tenant_id, item_type, item_id, version, snapshot, published_at)
select c.tenant_id, 'content', c.id, 1,
  jsonb_build_object(
    'name', c.name, 'siteId', c.site_id, 'audienceId', c.audience_id,
    'triggerConfig', c.trigger_config, 'targetUrl', c.target_url, 'body', c.body),
  coalesce(c.published_at, c.updated_at)
from content_items c where c.status = 'PUBLISHED';

insert into item_versions (tenant_id, item_type, item_id, version, snapshot, published_at)
select j.tenant_id, 'journey', j.id, 1,
  jsonb_build_object(
    'name', j.name, 'description', j.description, 'siteId', j.site_id, 'audienceId', j.audience_id,
    'settings', j.settings, 'goalConfig', j.goal_config, 'allowAnonymous', j.allow_anonymous,
    'nodes', coalesce((
      select jsonb_agg(jsonb_build_object('id', n.id, 'type', n.type, 'config', n.config, 'position', n.position)
        || case when n.content_id is null then '{}'::jsonb else jsonb_build_object('contentId', n.content_id) end
        order by n.ord)
      from journey_nodes n where n.journey_id = j.id), '[]'::jsonb),
    'edges', coalesce((
      select jsonb_agg(jsonb_build_object('sourceNodeId', e.source_node_id, 'targetNodeId', e.target_node_id)
        || case when e.label is null then '{}'::jsonb else jsonb_build_object('label', e.label) end
        order by e.ord)
      from journey_edges e where e.journey_id = j.id), '[]'::jsonb)),
  coalesce(j.published_at, j.updated_at)
from journeys j where j.status in ('PUBLISHED', 'PAUSED');

insert into item_versions (tenant_id, item_type, item_id, version, snapshot, published_at)
select a.tenant_id, 'audience', a.id, 1,
  jsonb_build_object('name', a.name, 'description', a.description, 'ruleTree', a.rule_tree),
  a.updated_at
from audiences a where a.deleted_at is null;

insert into live_item_versions (tenant_id, item_type, item_id, version, published_at)
select tenant_id, item_type, item_id, version, published_at
from item_versions where item_type <> 'audience';
