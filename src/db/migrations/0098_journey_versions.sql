-- Journey versions (issue 39, docs/versions.md): the engine runs a journey's published snapshot
-- (item_versions, migration 0090), never its working copy (journeys, journey_nodes,
-- journey_edges), and an enrollment keeps the version it entered.
--
-- `journeys.live_version` mirrors the journey's row of live_item_versions (written in the same
-- transaction by every publish), so the engine's statements read it with the journey;
-- `trigger_type` now mirrors the live version's TRIGGER (null before the first publish), not the
-- working copy's. `journey_enrollments.journey_version` is the version an enrollment runs.
alter table journeys add column live_version integer;
alter table journey_enrollments add column journey_version integer;

-- Every journey that runs (PUBLISHED, PAUSED, or a draft with enrollments in progress) gets its
-- current canvas as its next version, live, unless its latest version is that canvas already
-- (version 1 of 0090, on a journey not edited since). The fields as the service snapshots them.
with running as (
  select j.tenant_id, j.id, coalesce(j.published_at, j.updated_at) as at,
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
        from journey_edges e where e.journey_id = j.id), '[]'::jsonb)) as snapshot,
    (select max(v.version) from item_versions v
      where v.tenant_id = j.tenant_id and v.item_type = 'journey' and v.item_id = j.id) as latest
  from journeys j
  where j.status in ('PUBLISHED', 'PAUSED')
    or exists (select 1 from journey_enrollments e where e.journey_id = j.id and e.status = 'in_progress')
)
insert into item_versions (tenant_id, item_type, item_id, version, snapshot, published_at)
select r.tenant_id, 'journey', r.id, coalesce(r.latest, 0) + 1, r.snapshot, r.at
from running r
where not exists (
  select 1 from item_versions v
  where v.tenant_id = r.tenant_id and v.item_type = 'journey' and v.item_id = r.id
    and v.version = r.latest and v.snapshot = r.snapshot);

-- The latest version of each journey is its live one.
insert into live_item_versions (tenant_id, item_type, item_id, version, published_at)
select v.tenant_id, 'journey', v.item_id, v.version, v.published_at
from item_versions v
where v.item_type = 'journey'
  and v.version = (select max(w.version) from item_versions w
    where w.tenant_id = v.tenant_id and w.item_type = 'journey' and w.item_id = v.item_id)
on conflict (tenant_id, item_type, item_id)
  do update set version = excluded.version, published_at = excluded.published_at;

update journeys j set live_version = l.version,
  trigger_type = (
    select x -> 'config' ->> 'triggerType'
    from jsonb_array_elements(v.snapshot -> 'nodes') with ordinality as t (x, i)
    where x ->> 'type' = 'TRIGGER' order by i limit 1)
from live_item_versions l
join item_versions v on v.tenant_id = l.tenant_id and v.item_type = l.item_type
  and v.item_id = l.item_id and v.version = l.version
where l.tenant_id = j.tenant_id and l.item_type = 'journey' and l.item_id = j.id;

update journeys set trigger_type = null where live_version is null;

-- Enrollments run their journey's live version (the canvas they moved through until now).
update journey_enrollments e set journey_version = j.live_version
from journeys j where j.id = e.journey_id and j.live_version is not null;
