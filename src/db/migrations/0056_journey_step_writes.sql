-- Every fired timer closes one node-history row, inserts the next, and rewrites its enrollment
-- and its timer (100,000 timers may come due at one instant).
--
-- A visit's or a timer's tenant_id and journey_id are its enrollment's (runtime/store.ts writes
-- them from it), and deleting a tenant or a journey deletes its enrollments, which cascade to
-- their visits and timers: the enrollment's key alone keeps them, without two more lookups per
-- inserted row.
alter table journey_node_visits
  drop constraint journey_node_visits_tenant_id_fkey,
  drop constraint journey_node_visits_journey_id_fkey;
alter table journey_timers
  drop constraint journey_timers_tenant_id_fkey,
  drop constraint journey_timers_journey_id_fkey;

-- Room on each page for the next version of a row: a step's update of an enrollment (no indexed
-- column changes) or of a visit (closing it) then stays on its page (a HOT update), without a
-- new entry in every index of the table.
alter table journey_enrollments set (fillfactor = 70);
alter table journey_node_visits set (fillfactor = 70);
